"""Skill `timeline`: dated facts — what happened on a day or in a range, search, log one."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated

from bot.errors import ConfigError, ToolError
from memory.service import MemoryService
from memory.timeline import Category
from tools.context import ToolContext
from tools.plugin import Need, SkillContext, SkillPlugin
from tools.registry import Risk, Routing, tool

MAX_RANGE_DAYS = 366

# Shared with the memory skill's remember, which records the same kind of fact.
FactCategory = Annotated[Category, "what kind of fact"]
FactSlot = Annotated[str | None, "if it replaces an earlier state: home_city, employer…"]


class TimelineSkill(SkillPlugin):
    id = "timeline"
    description = "dated facts of the user's life: what happened on a day or in a period, log an event"
    routing = Routing(
        summary=(
            "Dated facts about the user's life: log something that happened today (exercise, errands, "
            "payments, visits), what did I do on a day, how many times or how much in a period. Apunta que "
            "hoy he..., cuándo fue la última vez."
        ),
        cues=(
            # Something the user just did, said in the first person, or asked about by day.
            r"\b(?:hoy|esta ma[ñn]ana|esta tarde) he\b",
            # The log of what happened, named: "check the log and my notes", "look in my logbook".
            r"\b(?:check|in|on|from|look at|search) (?:the|my) log(?:book)?\b",
            # What the user logged bit by bit: "las ventas que te fui anotando", "según lo q fui apuntando".
            r"\b(?:que|q)\s+(?:te\s+)?(?:fui|he\s+ido|iba|vengo)\s+(?:anotando|apuntando|registrando|pasando)\b",
            # What the user logged, asked back: "did I log where the leak was?", "qué apunté el día que…".
            r"\b(?:did i|have i|what did i) log(?:ged)?\b",
            # ("Dile que apunte la cita" asks someone else to note it.)
            r"(?<!\bdile\s)(?<!\bd[ií]gale\s)(?<!\bp[ií]dele\s)(?<!\bdecile\s)(?<!\bdecirle\s)"
            r"\b(?:qu[eé]|q)\s+(?:apunt|anot|registr)[eé]\s+(?:el|la|lo|los|las|cuando)\b",
            # What their own harvest or sales came to: "¿cuánto sacamos la última cosecha de la 2?".
            r"\bcu[aá]nt[oa]s?\s+(?:[\w]+\s+)?(?:sacamos|cosechamos|vendimos|recogimos|hicimos)\b",
            r"\bacabo de (?:volver|llegar|terminar|hacer|correr|nadar|salir|ir)\b",
            r"\bjust (?:got back|finished|came back|done|did|worked|pulled)\b",
            # What happened, put down: "apunta que hubo un apagón de 1:10 a 1:45".
            r"\b(?:apunta|anota|registra)(?:me)? (?:que|q) (?:hoy |ayer |anoche )?(?:hubo|ha habido|"
            r"se (?:fue|cort[oó]|cay[oó]|rompi[oó]))\b",
            r"\bwhat did i (?:do|get up to)\b",
            # The day something of the user's happened, asked back: "¿qué día fue exactamente que me caí?",
            # and a count put down: "apunta cuántos pedidos hubo".
            r"\bqu[eé] d[ií]a fue (?:exactamente |que |q |cuando |lo de )?(?:que |q |cuando )?(?:me|nos|lo|la|el)\b",
            # ("y q día exactamente fue q quedamos terceros": the day, then what happened to the user.)
            r"\b(?:qu[eé]|q) d[ií]a (?:exactamente |justo )?fue (?:que|q|cuando) (?:\w+ )?"
            r"(?:quedamos|qued[eé]|fuimos|fui|"
            r"ganamos|gan[eé]|perdimos|perd[ií]|empezamos|empec[eé]|me|nos)\b",
            # What the user did today, put down ("anotá q hoy vendí 6 máscaras"), not a to-do ("…hoy tengo que…").
            r"\b(?:apunt|anot|registr)[aá](?:me|nos)? (?:que|q) (?:hoy|ayer|anoche|esta ma[ñn]ana|esta tarde) "
            r"(?!(?:tengo|tenemos|hay|debo|me toca)\b)",
            # "log Otter's engine service today, 1,400 hours on the clock".
            r"^\W*log\s+(?!in\b|out\b|on\b|off\b|into\b)[^.?!]{1,60}\b(?:today|this morning|this afternoon|tonight)\b",
            r"\b(?:apunta|anota|registra)(?:me)? (?:cu[aá]nt[oa]s|lo (?:que|q)) [^.?!]{1,40}\b(?:hubo|hice|hicimos|"
            r"vend[ií]|vendimos|salieron|entraron|llegaron)\b",
            r"\bwhat (?:else )?did i (?:do|get up to)\b",
            r"\btimeline\b",
            r"\bl[ií]nea de(?:l)? tiempo\b",
            r"\bqu[eé] m[aá]s hice\b",
            # Something done, put down as such: "apunta que he terminado…", "note that I've finished…".
            r"\b(?:apunta|anota|registra|pon)(?:me)? (?:que|q) (?:ya )?(?:he|hemos) \w+(?:ado|ido|to|cho|sto)\b",
            r"\b(?:note|record|put down|write down|mark) (?:down )?that i(?:'ve| have)? (?:just |already )?"
            r"(?:\w+ed|did|went|ran|swam|read|bought|paid|saw|made|got|took|finished)\b",
            r"\bq(?:u[eé])? hice\b",
            # Counted from what the user did: "how many classes did I teach in October?", "lo que vendí el martes".
            r"\bhow many (?:\w+ ){0,2}(?:did|have) (?:i|we) "
            r"(?!(?:get|got|receive|received|have|had|left|need|want)\b)\w+",
            # A count the user did, said first: "did 312 at the Charltons today", "sheared 240 this morning".
            r"^\W*(?:just\s+)?(?:did|done|sheared|picked|cut|ran|drove|sold|made|caught|milked|packed|delivered|hauled|"
            r"finished)\s+(?:another\s+)?\d[\d,.]*\b[^.?!]{0,60}\b(?:today|this morning|tonight|this arvo)\b",
            # How many the user did in a month: "cuántos juegos canté en diciembre?".
            r"\bcu[aá]nt[oa]s\s+\w+\s+(?:[a-zñ]{2,}[eé])\s+(?:en\s+(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|"
            r"se(?:p)?tiembre|octubre|noviembre|diciembre)|el\s+(?:mes|a[ñn]o)\s+pasado|la\s+semana\s+pasada|este\s+(?:mes|a[ñn]o)|"
            r"esta\s+semana|ayer|hoy|anoche)\b",
            r"\blo (?:que|q) (?:vend[ií]|gast[eé]|cobr[eé]|pagu[eé]|corr[ií]|hice|hicimos|vendimos)\b",
            # ("Lo q he sacao esta semana": what the user made, said in the perfect, Andalusia's "-ao" too.)
            r"\blo (?:que|q) (?:he|hemos) (?:sacad?o|vendid?o|hecho|cobrad?o|gastad?o|ganad?o|recogid?o)\b",
            r"\b(?:tengo|llevo) registrad[oa]s?\b|\b(?:que|q) registr[eé]\b",
            r"\blog that\b",
            # A log entry typed as one, and what was logged: "log: 9 clients today…", "what did I log for the callout?".
            r"^\W*log\s*:",
            r"\blog (?:it|that one|them)\b",  # "if run 14 finished, log it"
            r"\blog\s+\d",  # "log 12 km today": an amount put down for the day
            r"\bwhat (?:did|have) i (?:log|logged)\b",
            r"\b(?:haz|hazme|pon|mete|add|make) (?:un |a )?log\b",
            # Today's result or errand told as done: "hoy ganamos 3 a 1", "ayer vendí 40 kilos", "today we won 3-1".
            r"\b(?:hoy|ayer|anoche|esta ma[ñn]ana|esta tarde) (?:ya )?(?!(?:vamos|estamos|tenemos|qu[eé]|as[ií])\b)"
            r"(?:[a-záéíóúñ]{2,}(?:é|í|amos|imos)|fui|fuimos|hice|hicimos|tuve|tuvimos|estuve|estuvimos)\b",
            r"\b(?:today|this morning|tonight|last night|yesterday) (?:i|we) (?:just )?(?:\w+ed|won|lost|ran|swam|went|"
            r"did|made|got|sold|drew|took|saw|met|rode|drove)\b",
            # Totals of what the user logged: "how many extra hours llevo este mes", "cuántos km llevamos".
            r"\b(?:how many|how much|cu[aá]nt[oa]s?)\b[^.?!]{0,40}"
            r"\b(?:llevo|llevamos|anot[eé]|apunt[eé]|registr[eé])\b",
            # What was put down before: "qué apunté el mes pasado", typed without its accent.
            # ("los km que anoté este mes": the same, as a relative clause.)
            r"\bq(?:u[eé])? (?:apunt|anot|registr)[eé] (?:el \w+ pasado|la semana pasada|ayer|anteayer|antes|hace|"
            r"este (?:a[ñn]o|mes|trimestre)|esta semana)\b",
            # When a thing of the user's past happened: "cuándo fue que vacunamos al perro?".
            r"\bcu[aá]ndo fue (?:que|q|la vez que|la vez q)\b|\bwhen was it (?:that )?(?:i|we|my|the kids)\b",
            # …asked by the day it was or how long ago: "qué día fue que entregué…", "hace cuánto que no sulfato…",
            # "how long since I last…".
            r"\bqu[eé] d[ií]a fue (?:que|q)\b|\bhace cu[aá]nto (?:que|q) no\b|\bhow long (?:has it been )?since i\b",
            r"\b(?:apunta|anota|registra)(?:me)? (?:que|q) hoy\b",
            # The same with the deed in the preterite: "anota que terminé la maqueta", "apunta q ayer corrimos 8 km".
            r"\b(?:apunta|anota|registra)(?:me)? (?:que|q) (?:hoy |ayer |anoche |esta ma[ñn]ana |esta tarde )?"
            r"(?!(?:qu[eé]|caf[eé]|beb[eé]|vamos|estamos|somos|podemos)\b)[a-záéíóúñ]{3,}(?:é|í|amos|imos)\b",
            # What the user logged, to go by: "go by what I've logged", "from my log".
            r"\bwhat (?:i'?ve|i have|i) logged\b|\b(?:from|in|off) my logs?\b",
            r"\bthe last time i\b",
            r"\bla [uú]ltima vez (que|q)\b",
            r"\bhow many times\b",
            r"\bcu[aá]ntas veces\b",
        ),
        examples=(
            "today I ran 10 km",
            "log that I paid the electricity bill today",
            "what did I do last Saturday?",
            "when was the last time I went to the dentist?",
            "how many times did I go swimming in April?",
            "I just got back from a 2 hour bike ride",
            "write down that I visited grandma today",
            "how much have I spent on petrol this month according to what I logged?",
            "what happened on March 3rd?",
            "hoy he ido al gimnasio",
            "apunta que hoy he pagado el alquiler",
            "qué hice el domingo pasado?",
            "cuándo fue la última vez que fui a la peluquería?",
            "cuántas veces salí a correr en enero?",
            "acabo de volver de andar 8 km por el monte",
            "anota que hoy he llevado el coche al taller",
            "qué pasó el día de mi cumpleaños?",
            "cuántos kilómetros llevo en bici este mes?",
            "esta mañana he hecho yoga, apúntalo",
        ),
    )

    settings_section = "memory"
    needs = frozenset({Need.MEMORY})

    @classmethod
    async def install(cls, ctx: SkillContext) -> None:
        if ctx.memory is None:
            raise ConfigError("the timeline skill needs the memory service in its context")
        ctx.add_tools(cls(ctx.memory))

    def __init__(self, service: MemoryService) -> None:
        self._service = service

    @tool(risk=Risk.READ, idempotent=True)
    async def timeline_list(self, ctx: ToolContext, start: Annotated[date, "first day, YYYY-MM-DD"],
                            end: Annotated[date | None, "last day (default: same as start)"] = None) -> str:
        """List the facts recorded between two days (inclusive)."""
        last = end or start
        if last < start:
            raise ToolError("end is before start")
        if last - start > timedelta(days=MAX_RANGE_DAYS):
            raise ToolError(f"ask for at most {MAX_RANGE_DAYS} days at a time")
        facts = await self._service.timeline.between(ctx.user_key, start, last)
        if not facts:
            return f"Nothing recorded between {start} and {last}."
        return "\n".join(fact.line for fact in facts)

    @tool(risk=Risk.READ)
    async def timeline_search(self, ctx: ToolContext, query: Annotated[str, "words to look for"],
                              limit: Annotated[int, "1-50"] = 20) -> str:
        """Search the timeline facts by words."""
        facts = await self._service.timeline.search(ctx.user_key, query, max(1, min(limit, 50)))
        if not facts:
            return "No timeline fact matches."
        return "\n".join(fact.line for fact in facts)

    @tool(risk=Risk.WRITE)
    async def timeline_log(self, ctx: ToolContext, fact: Annotated[str, "what happened, one sentence"],
                           category: FactCategory = Category.OTHER, slot: FactSlot = None) -> str:
        """Log something that happened today (dated by the user's message, not by you)."""
        done = await self._service.remember(ctx.user_key, fact, category, slot=slot)
        if done.duplicate:
            return f"Already in the timeline for today (fact {done.fact_id})."
        return f"Logged as fact {done.fact_id}."

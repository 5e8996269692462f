"""Skill `memory`: recall past conversations, open a card, remember a fact, forget for good.

Forgetting is two calls: `forget_preview` lists exactly what would go and returns a plan
id; `forget(plan_id)` is DESTRUCTIVE, so the user approves a description that lists the
same items, and only that plan is executed. `install_memory` opens the memory service and
installs it with the timeline and diary skills (tests and tools use it; the app lists them).
"""

from __future__ import annotations

import dataclasses
import secrets
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Annotated

import httpx
from apscheduler.triggers.cron import CronTrigger
from pydantic import BaseModel

from bot.config import Settings
from bot.errors import ConfigError, ToolError
from memory.commands import ForgetCommand
from memory.forget import ForgetPlan, TargetError, parse_target
from memory.service import MemoryService, open_memory
from memory.timeline import Category
from tools.context import ToolContext
from tools.installing import install_skills, skill_context
from tools.plugin import Need, SkillContext, SkillPlugin
from tools.registry import BoundTool, Risk, Routing, tool
from tools.skills.diary import DiarySkill
from tools.skills.timeline import FactCategory, FactSlot, TimelineSkill

if TYPE_CHECKING:
    from bot.core.assistant import Assistant
    from bot.scheduler import Scheduler

PLAN_LIFETIME = timedelta(minutes=15)


@dataclasses.dataclass(frozen=True)
class _PendingPlan:
    plan: ForgetPlan
    made_at: datetime


def _describe_unbound(args: BaseModel) -> str:
    return f"forget memory plan {getattr(args, 'plan_id', '?')}"


class MemorySkill(SkillPlugin):
    id = "memory"
    description = "recall past conversations, remember a fact, forget something for good"
    routing = Routing(
        summary=(
            "Long-term memory of past conversations: recall what the user told the assistant before, remember"
            " a personal fact or preference, forget something. Acuérdate, recuerda que, olvida, qué te dije."
        ),
        cues=(
            r"\bte lo (?:dije|cont[eé]|coment[eé]|mencion[eé])\b",
            r"\bi (?:told|mentioned) (?:it|this|that) to you\b",
            r"\bqu[eé] sabes (?:de|sobre) m[ií]\b",
            r"\bwhat do you know about me\b",
            r"\bjust so you know\b",
            r"\bpara que lo sepas\b",
            r"\bque sepas que\b",
            r"\b(?:tu|your) memor(?:ia|y)\b",
            r"\bremember (that|my|me)\b",
            r"\bremember for (?:the future|next time|later|future reference)\b",
            r"\bremember (?:she|he|they|we|i)(?:'s|'re|'m| is| are| am| has| have| can|'ll| will)\b",
            # …and someone by name: "remember Rita's vegetarian", "remember Tom can't do Mondays".
            r"\bremember (?-i:[A-Z])[^\W\d_]+(?:'s| is| has| can't| doesn't| likes| hates| loves)\b",
            # …or people by what they always or never do: "remember the Hendersons always want Kingfisher".
            r"\bremember (?:the )?(?-i:[A-Z])[^\W\d_]+s? (?:always|never|usually|only|hate|love|like|want|prefer)\b",
            r"\bremember (?:mrs?|ms|dr|old|wee|auld)\.? [\w']+(?: [\w']+){0,4}? (?:always|never|usually)\b",
            r"\bacu[eé]rdate\b",
            r"\brecuerda (que|q)\b",
            r"\bkeep in mind\b",
            r"\bbear in mind\b",
            r"\bque (?:recuerdes|te acuerdes de|tengas en cuenta) (?:que|q)\b",
            r"\b(?:qu[eé]date con|gu[aá]rdate) (?:eso|esto|ello|que|el dato|la idea)\b",
            r"\bten(?:lo)? en cuenta\b",
            r"\bque no se te olvide\b",
            r"\bforget (what|that|about|everything)\b",
            r"\bolvida (lo|que|q)\b",
            r"\bwhat did i tell you\b",
            r"\bte acuerdas\b",
            # What the assistant was told of someone: "qué número tenías de Yaneth?", "what was Sam's number again?".
            r"\b(?:qu[eé]|q|cu[aá]l) (?:n[uú]mero|tel[eé]fono|direcci[oó]n|correo|cumple\w*) "
            r"(?:ten[ií]as|tienes|te di|te dije|me dijiste) de\b",
            r"\bdo you remember\b",
            r"\b(?:qu[eé]|q) te (?:dije|cont[eé]|(?:hab[ií]a|he) (?:dicho|contado))\b",
            # Past conversations named as such: "what we talked about", "te comenté", "I mentioned".
            r"\bwe (?:talk|talked|spoke|discussed|chatted)\b",
            r"\bhablamos\b",
            r"\bi (?:told|mentioned to|said to) you\b",
            r"\bdid i (?:ever )?(?:tell|mention)\b",
            r"\bte (?:coment[eé]|mencion[eé]|habl[eé])\b",
            # What the user passed on before: "el cel del arriero que te pasé la otra vez", "the number I gave you".
            r"\b(?:que|q) te (?:pas[eé]|di|mand[eé]|envi[eé])\b",
            r"\b(?:that|which) i (?:gave|sent|passed) you\b",
            # A name asked in the past tense, as something once said: "¿cómo se llamaba el socio de las piezas?".
            r"\bc[oó]mo se llamaba\b|\bwhat was (?:the name of|(?:his|her|their) name)\b",
        ),
        examples=(
            "what did I tell you about my brother's wedding?",
            "remember that I'm allergic to penicillin",
            "forget what I said about my old job",
            "do you remember the name of the plumber I mentioned?",
            "remember that my daughter's school is Colegio Miraflores",
            "what do you know about me?",
            "did I tell you where I parked last time we talked about it?",
            "I prefer window seats, keep that in mind",
            "delete everything you know about my ex",
            "what was that book my friend recommended that I told you about?",
            "acuérdate de que mi suegra se llama Pilar",
            "recuerda que no me gusta el picante",
            "qué te conté de la entrevista de trabajo?",
            "olvida lo que te dije sobre mi vecino",
            "te dije alguna vez cómo se llama el perro de mi hermano?",
            "cómo se llamaba la tienda que te comenté la semana pasada?",
            "no es Marta, es María; corrígelo y olvida lo anterior",
            "qué sabes de mí?",
            "guarda que mi talla de zapato es un 43",
            "te acuerdas de lo que hablamos del coche nuevo?",
            "borra de tu memoria lo de mi operación",
            "que sepas que soy vegetariano desde enero",
            "keep in mind that Sam doesn't drink alcohol",
            "remember that my car's plate is 1234 KLM",
            "remember my gym locker code is 4471",
            "just so you know, my partner's birthday is on the 3rd of June",
            "acuérdate de que mi pasaporte caduca en 2028",
            "para que lo sepas: tengo dos hijos, Leo y Vera",
        ),
    )
    settings_section = "memory"
    needs = frozenset({Need.MEMORY, Need.SCHEDULER})

    @classmethod
    async def install(cls, ctx: SkillContext) -> None:
        """Tools, the profile and memories in the prompt, /forget, consolidation after turns and when idle."""
        service = memory_of(ctx)
        ctx.add_tools(cls(service))
        ctx.host.add_prompt_source(service)
        command = ForgetCommand(service, ctx.host)
        ctx.add_command("forget", command.handle,
                        "forget something for good: /forget <topic> | card N | fact N | file N | diary YYYY-MM-DD"
                        " | rule <section> N")
        ctx.host.add_turn_listener(service.after_turn)

        async def consolidation_job(fired_at: datetime) -> None:
            await service.consolidate_idle(fired_at)

        every = ctx.settings.memory.check_every_minutes
        ctx.add_cron_job("memory-consolidation", CronTrigger(minute=f"*/{every}", timezone=ctx.settings.core.zone),
                         consolidation_job)

    def __init__(self, service: MemoryService) -> None:
        self._service = service
        self._plans: dict[str, _PendingPlan] = {}

    def tools(self) -> list[BoundTool]:
        """Bind `forget`'s approval text to this instance's plans (it lists the real items)."""
        bound = super().tools()
        return [
            dataclasses.replace(b, spec=dataclasses.replace(b.spec, describe=self._describe_forget))
            if b.name == "forget" else b
            for b in bound
        ]

    @tool(risk=Risk.READ)
    async def recall(self, ctx: ToolContext, query: Annotated[str, "what to look for, in the user's words"],
                     limit: Annotated[int, "how many cards, 1-20"] = 6) -> str:
        """Search past conversations (summary cards) by meaning and keywords."""
        hits = await self._service.recall(ctx.user_key, query, max(1, min(limit, 20)))
        if not hits:
            return "No memories match."
        return "\n".join(
            f"card {hit.card.id} ({hit.card.day.isoformat()}) {hit.card.title}: {hit.card.synthesis}"
            + (f" Facts: {' '.join(hit.card.facts)}" if hit.card.facts else "")
            + (f" Decisions: {' '.join(hit.card.decisions)}" if hit.card.decisions else "")
            for hit in hits
        )

    @tool(risk=Risk.READ, idempotent=True)
    async def open_card(self, ctx: ToolContext, card_id: Annotated[int, "the card number from recall"]) -> str:
        """Open a summary card back into the messages it was made from."""
        card = await self._service.cards.get(ctx.user_key, card_id)
        if card is None:
            raise ToolError(f"there is no card {card_id}")
        messages = await self._service.cards.source_messages(ctx.user_key, card_id)
        lines = [f"card {card.id} ({card.day.isoformat()}) {card.title}: {card.synthesis}"]
        if not messages:
            lines.append("(its source messages were forgotten or never stored)")
        for message in messages:
            local = message.created_at.astimezone(ctx.timezone).strftime("%Y-%m-%d %H:%M")
            lines.append(f"{local} {message.role}: {message.content}")
        return "\n".join(lines)

    @tool(risk=Risk.WRITE)
    async def remember(self, ctx: ToolContext, fact: Annotated[str, "the fact, one clear sentence"],
                       category: FactCategory = Category.OTHER, slot: FactSlot = None) -> str:
        """Remember a fact the user asked to keep (dated by their message)."""
        done = await self._service.remember(ctx.user_key, fact, category, slot=slot)
        if done.duplicate:
            return f"Already remembered today (fact {done.fact_id})."
        return f"Remembered: fact {done.fact_id}, card {done.card_id}."

    @tool(risk=Risk.READ)
    async def forget_preview(
        self, ctx: ToolContext,
        what: Annotated[str, "card N | fact N | file N | diary YYYY-MM-DD | rule <section> N | a topic"],
    ) -> str:
        """List exactly what forgetting would delete; returns a plan id for `forget`."""
        try:
            target = parse_target(what)
        except TargetError as exc:
            raise ToolError(str(exc)) from None
        plan = await self._service.forgetter.plan(ctx.user_key, target)
        if plan.empty:
            return plan.describe()
        now = ctx.clock.now()
        self._plans = {k: v for k, v in self._plans.items() if now - v.made_at < PLAN_LIFETIME}
        plan_id = secrets.token_hex(8)
        self._plans[plan_id] = _PendingPlan(plan, now)
        return f"{plan.describe()}\nplan_id: {plan_id} (call forget with it; the user must approve)"

    @tool(risk=Risk.DESTRUCTIVE, describe=_describe_unbound, erases_memory=True)
    async def forget(self, ctx: ToolContext, plan_id: Annotated[str, "the plan id from forget_preview"]) -> str:
        """Forget for good what forget_preview listed, then verify the text is gone from the files."""
        pending = self._plans.get(plan_id)
        if pending is None or pending.plan.user_key != ctx.user_key:
            raise ToolError("unknown or expired plan id: call forget_preview first")
        if ctx.clock.now() - pending.made_at >= PLAN_LIFETIME:
            raise ToolError("that plan expired: call forget_preview again")
        del self._plans[plan_id]
        report = await self._service.forgetter.execute(pending.plan)
        return report.render()

    def _describe_forget(self, args: BaseModel) -> str:
        pending = self._plans.get(str(getattr(args, "plan_id", "")))
        if pending is None:
            return "Forget: unknown or expired plan (nothing will be deleted)."
        return pending.plan.describe()


async def install_memory(assistant: Assistant, scheduler: Scheduler, settings: Settings) -> MemoryService:
    """Open the memory and install the memory, timeline and diary skills, as the app does."""
    deps = assistant.deps
    service = await open_memory(settings, deps.db, deps.clock, deps.model)
    async with httpx.AsyncClient() as http:  # these skills make no HTTP calls; the context carries one
        ctx = skill_context(assistant, scheduler, http, memory=service)
        await install_skills([MemorySkill, TimelineSkill, DiarySkill], ctx)
    return service


def memory_of(ctx: SkillContext) -> MemoryService:
    """The memory service the app opened; the memory skills cannot run without it."""
    if ctx.memory is None:
        raise ConfigError("the memory skills need the memory service (open_memory) in their context")
    return ctx.memory

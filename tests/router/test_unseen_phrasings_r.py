"""Phrasings a blind set of 180 messages found the router missing (first run: recall 0.933, all-needed
0.924, several skills 0.851): chat shorthand ("q", "pa", "tmrw", "u"), a short follow-up that names
something the last answer listed ("cancel the yoga one"), a long one that opens on a verb acting on the
thing just shown ("añádele al final…"), the way somewhere, time held on the calendar, things done put
down as done, facts to keep ("quédate con eso"), "tell him yes", "a todo" and asking after the assistant
"today" (bot/core/texting.py, bot/core/routing/clauses.py, bot/core/routing/router.py, tools/skills/).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.clock import ManualClock
from bot.core.events import TextMessage
from bot.core.routing import RouteDecision, RouteRequest
from bot.core.routing.clauses import (
    acts_on_it,
    adds_to_it,
    counts_days_to_given_dates,
    is_greeting,
    is_small_talk,
    names_shown,
    needs_only_the_model,
    offer_taken_up,
    refers_back,
)
from bot.core.texting import spelled_out
from memory.db import Database
from tests.router.turns import request
from tests.scripted_model import ScriptedModel
from tests.support import OWNER, build_assistant, make_settings


@pytest.mark.parametrize(("typed", "meant"), [
    ("q hay pa cenar", "que hay para cenar"),
    ("xq no me llega", "porque no me llega"),
    ("yo tb voy", "yo también voy"),
    ("can u rmnd me tmrw pls", "can you remind me tomorrow please"),
    ("dnd qdamos?", "dónde qdamos?"),
    ("eso ya ta apuntao", "eso ya ta apuntado"),
    ("los dejé guardaos", "los dejé guardados"),
])
def test_chat_shorthand_is_spelled_out(typed: str, meant: str) -> None:
    assert spelled_out(typed) == meant


@pytest.mark.parametrize("text", ["uno u otro", "siete u ocho", "un disco de 2 tb", "the Q3 figures", "k", "18 x 23",
                                  "it's a quick question", "bacalao con cacao en Bilbao", "ciao!"])
def test_words_that_only_look_like_shorthand_stay(text: str) -> None:
    assert spelled_out(text) == text


@pytest.mark.parametrize("text", ["y tu q tal estas hoy?", "oye, y tú qué tal estás?", "how are you today?",
                                  "q tal andas", "how have you been?"])
def test_asking_after_the_assistant_is_small_talk(text: str) -> None:
    assert is_small_talk(spelled_out(text))


@pytest.mark.parametrize("text", ["qué tengo hoy?", "anything today?", "oye, mira el correo"])
def test_a_request_with_today_is_not_small_talk(text: str) -> None:
    assert not is_small_talk(spelled_out(text))


@pytest.mark.parametrize("text", ["mornin!", "good mornin ☀️"])
def test_a_clipped_good_morning_is_a_greeting(text: str) -> None:
    assert is_greeting(text)


async def test_texted_questions_route_like_spelled_ones(make_router, available) -> None:
    router = make_router()
    texted = await router.route(request("q tiempo va a hacer el finde?"), available)
    assert "environment" in texted.skills, texted.reason


@pytest.mark.parametrize(("text", "answer"), [
    ("cancel the yoga one", "Thursday: 08:00 Yoga, 12:30 Lunch with Priya, 18:00 Dentist."),
    ("move the dentist to 11", "Thursday: 08:00 Yoga, 12:30 Lunch with Priya, 18:00 Dentist."),
    ("borra la de la fontanería", "Tienes 3 notas: fontanería, ideas-regalos, viaje-lisboa."),
])
def test_a_short_message_naming_what_the_answer_listed_names_it(text: str, answer: str) -> None:
    assert names_shown(text, answer)


@pytest.mark.parametrize(("text", "answer"), [
    ("what's the weather like on Thursday?", "Thursday: 08:00 Yoga."),
    ("and have you got anything for me", "You have 3 unread emails."),
    ("cancel the yoga one", ""),
])
def test_common_words_and_days_name_nothing_shown(text: str, answer: str) -> None:
    assert not names_shown(text, answer)


async def test_a_follow_up_naming_a_listed_item_keeps_the_skill_that_listed_it(make_router, available) -> None:
    decision = await make_router().route(
        request("drop pilates, I'm knackered", previous=["agenda"], recent=["what's on tomorrow?"],
                answer="Tomorrow: 07:30 Pilates, 11:00 Call with Omar."), available)
    assert "agenda" in decision.skills, decision.reason


@pytest.mark.parametrize("text", ["mándaselo también a mi hermano con un mensaje cariñoso de mi parte",
                                  "ponlo en la parte de arriba que es lo más importante de todo el documento",
                                  "send it to the whole team with a short note saying it is the final version",
                                  "vale, cámbialo a las cinco y media que antes no llego del trabajo"])
def test_a_verb_acting_on_the_thing_shown_leans_back_however_long(text: str) -> None:
    assert acts_on_it(text)


@pytest.mark.parametrize("text", ["mándale un correo a Lucía diciendo que llego tarde", "is it going to rain later",
                                  "does it open on sundays", "dile a mi madre que la llamo luego"])
def test_a_verb_whose_object_the_message_names_does_not(text: str) -> None:
    assert not acts_on_it(text)


async def test_a_long_follow_up_opening_on_it_keeps_the_notes(make_router, available) -> None:
    decision = await make_router().route(
        request("añádele debajo que el electricista dijo que vendría el martes por la tarde", previous=["notes"],
                recent=["abre la nota de la mudanza"]), available)
    assert "notes" in decision.skills, decision.reason


@pytest.mark.parametrize(("text", "skill"), [
    ("how do I get to the stadium from the hotel?", "environment"),
    ("cómo llegamos a la estación desde aquí?", "environment"),
    ("block out two hours friday afternoon for the report", "agenda"),
    ("bloquéame la mañana del lunes", "agenda"),
    ("where do I have to be this afternoon?", "agenda"),
    ("agéndalo", "agenda"),
    ("anótamelo", "tasks"),
    ("make a to-do for calling the landlord", "tasks"),
    ("add a todo to renew the passport", "tasks"),
    ("what else did I do last sunday?", "timeline"),
    ("anota que hemos pintado la valla", "timeline"),
    ("note that I've already paid the gym", "timeline"),
    ("bear in mind that my brother is coeliac", "memory"),
    ("quédate con esto: el wifi de casa de mis padres es el segundo", "memory"),
    ("guárdate que mi talla de zapato es la 43", "memory"),
    ("tell her yes, Thursday works", "email"),
    ("dile que sí, que me apunto", "email"),
    # From the sixth set's first run.
    ("what are the latest NHS guidelines on ear wax?", "web"),
    ("cuál es la normativa vigente para vender huevos de casa?", "web"),
    ("is there any recall for the baby formula I buy?", "web"),
    ("hay alguna alerta sanitaria con el pollo?", "web"),
    ("hoy vendimos todas las empanadas antes de las 2", "timeline"),
    ("ayer planté los tomates del bancal de arriba", "timeline"),
    ("last night we drew 2-2 away, big result", "timeline"),
    ("cuántas guardias llevo este trimestre?", "timeline"),
    ("how many hours of overtime llevo since June?", "timeline"),
    ("q anote ayer del veterinario?", "timeline"),
    ("hazme un log de que hoy cerré a las 10", "timeline"),
    # From the seventh set's first run.
    ("did the smoke alarm go off while we were out?", "inbox"),
    ("ha saltado algo en la cámara de seguridad esta noche?", "inbox"),
    ("and remember he's fine with gluten now, the allergy test was clear", "memory"),
    ("is the A66 still closed after the accident?", "web"),
    ("oye, sigue cortada la carretera de la sierra por la nieve?", "web"),
    ("a qué hora echan el partido de hoy?", "web"),
    ("what's on the telly tonight?", "web"),
    # From the eighth set's first run.
    ("who's my first client tomorrow?", "agenda"),
    ("a qué hora es mi próxima cita?", "agenda"),
    ("when's the Ortiz christening again?", "agenda"),
    ("quítame la reunión del jueves que no puedo", "agenda"),
    ("ok move it to friday then", "agenda"),
    ("muévelo al viernes a la misma hora", "agenda"),
    ("q te había dicho yo del casero?", "memory"),
    # From the ninth, tenth and eleventh sets' first runs.
    ("are the streets around the stadium closed for the parade?", "web"),
    ("hay cortes de tráfico en el centro por la maratón?", "web"),
    ("is the 7:40 train to Leeds delayed?", "web"),
    ("mi vuelo a Lima sale a su hora?", "web"),
    ("is BA 2490 to Rome on time?", "web"),
    ("a cuánto se está pagando el kilo de almendra este año?", "web"),
    ("what's the going rate for a second-hand caravan?", "web"),
    ("cuál es el euríbor de este mes?", "web"),
    ("is the cathedral step-free inside?", "web"),
    ("when's high tide at Whitby on Sunday?", "web"),
    ("el clima del finde en Granada?", "environment"),
    ("anything on the garden camera last night?", "inbox"),
    ("ha pasado algo en la cámara del garaje?", "inbox"),
    ("anything from the servers while I was off?", "inbox"),
    ("did the signed contract come in yet?", "email"),
    ("cuándo fue que le pusieron la vacuna al perro?", "timeline"),
    ("los kilómetros que anoté este mes, súmamelos", "timeline"),
    ("go by what I've logged this week", "timeline"),
    ("qué me toca mañana?", "agenda"),
    ("qué turno tengo el sábado?", "agenda"),
    ("is my shift tomorrow early or late?", "agenda"),
    ("ponlo a las 5 y media", "agenda"),
    ("book me out Thursday morning, I'm at the dentist", "agenda"),
    # From the twelfth set's first run.
    ("log: ran the 10k, 52 minutes, knees fine", "timeline"),
    ("log 30 km on the bike today", "timeline"),
    ("what did I log for Tuesday's shift?", "timeline"),
    # From the thirteenth set's first run.
    ("remember Tom can't do Mondays", "memory"),
    ("cuántos km apunté la semana pasada?", "timeline"),
    ("anota que ayer corrimos 8 km con Marta", "timeline"),
    ("apúntame que hoy terminé el informe", "timeline"),
    # From the fourteenth set's first run.
    ("will it be cold for my hike with Ana on Sunday?", "agenda"),
    ("llevo paraguas a la boda de Lucía?", "agenda"),
    ("what time's the school concert, and will it be dry?", "agenda"),
    ("if the backup finished, log it", "timeline"),
])
def test_what_a_request_works_on_names_its_skill(make_router, available, text: str, skill: str) -> None:
    assert skill in make_router().named(spelled_out(text), available)


@pytest.mark.parametrize(("text", "skill"), [
    ("how far is Leeds from York?", "agenda"),
    ("a todo volumen, pon algo de música", "tasks"),
    ("block the ads on this page", "agenda"),
    ("tell me a joke", "email"),
    ("note that the meeting moved", "timeline"),
    ("the history of the castle is fascinating", "web"),
    ("I'm on cloud nine, the camera I ordered came", "inbox"),
    ("mi turno de palabra en la reunión", "timeline"),
    ("apunta que vamos el sábado", "timeline"),
    ("anota que quiero ir al dentista", "timeline"),
    ("tengo una lista de regalos para el cumple de Ana", "agenda"),
])
def test_words_that_only_resemble_those_cues_name_nothing(make_router, available, text: str, skill: str) -> None:
    assert skill not in make_router().named(text, available)


class RecordingRouter:
    """Routes to no skill and keeps what each turn asked, so the test is about what the turn passes."""

    def __init__(self) -> None:
        self.requests: list[RouteRequest] = []

    async def route(self, request: RouteRequest, available: dict[str, str]) -> RouteDecision:
        self.requests.append(request)
        return RouteDecision(frozenset())


async def test_a_turn_passes_the_router_its_last_answer(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    router = RecordingRouter()
    assistant, _ = await build_assistant(make_settings(tmp_path, model.base_url), db, clock, router=router)
    model.respond("Which one do you mean: Pilates or the call with Omar?")
    await assistant.handle(TextMessage(OWNER, "what's on tomorrow?"))
    model.respond("Vale.")
    await assistant.handle(TextMessage(OWNER, "drop pilates"))
    assert router.requests[0].previous_answer == ""
    assert "Pilates" in router.requests[1].previous_answer


# A second blind set of 180 (first run after the fixes above: recall 0.967, all-needed 0.968, several
# skills 0.935, small talk routed to nothing 0.55) found: "qué pone el de X" two words before the
# article, short names in capitals, a greeting that addresses someone, "tell <name> yes", "qué se sabe
# del…" and questions about words.
@pytest.mark.parametrize("text", ["y qué pone la de Iberia?", "what about the BBVA one"])
def test_a_listed_item_named_by_article_or_in_capitals_refers_back(text: str) -> None:
    assert refers_back(text) or names_shown(text, "1. Iberia – tu tarjeta de embarque\n2. BBVA – recibo")


@pytest.mark.parametrize("text", ["Good morning sir", "buenos días jefa", "good morning!! ☀️"])
def test_a_greeting_that_addresses_someone_is_a_greeting(text: str) -> None:
    assert is_greeting(text)


@pytest.mark.parametrize("text", ["morning run done", "good morning, what's on today and is it raining"])
def test_a_greeting_with_a_request_is_not_only_a_greeting(text: str) -> None:
    assert not is_greeting(text)


@pytest.mark.parametrize(("text", "skill"), [
    ("tell Priya we'll be there by eight", "email"),
    ("tell the landlord that the boiler is fixed", "email"),
    ("qué se sabe del apagón en el norte?", "web"),
    ("what's the latest on the rail strike?", "web"),
])
def test_telling_someone_and_asking_after_events_name_their_skill(make_router, available, text: str,
                                                                   skill: str) -> None:
    assert skill in make_router().named(text, available)


@pytest.mark.parametrize("text", ["tell me a story", "can you tell the difference?"])
def test_telling_the_user_is_no_mail(make_router, available, text: str) -> None:
    assert "email" not in make_router().named(text, available)


# A third blind set of 180 (first run after both rounds above: recall 0.939, all-needed 0.942, several
# skills 0.872) found a first request that follows up while the next asks something new, Australian and
# half-hearted greetings, and thanks in slang.
@pytest.mark.parametrize(("text", "previous", "answer"), [
    ("¿y el sábado? que tenemos la barbacoa en el parque", ["environment"], "Mañana: sol, máx 24°."),
    ("borra lo del fontanero, y mándale un correo a Rosa diciendo que ya está", ["tasks"],
     "Pendientes: 1. Llamar al fontanero 2. Pagar el gimnasio"),
    ("how much was the deposit? then add it to the flat note", ["email"],
     "1. Lettings Co – \"Your deposit receipt\"\n2. Bank – statement"),
])
async def test_a_first_request_that_follows_up_keeps_the_last_skill(
        make_router, available, text: str, previous: list[str], answer: str) -> None:
    decision = await make_router().route(request(text, previous=previous, recent=["..."], answer=answer), available)
    assert set(previous) <= decision.skills, decision.reason


async def test_thanks_after_a_hesitation_keep_nothing(make_router, available) -> None:
    decision = await make_router().route(
        request("hmm bueno. thanks anyway", previous=["agenda"], recent=["am I free at 5?"]), available)
    assert not decision.skills, decision.reason


@pytest.mark.parametrize("text", ["g'day!", "g'day mate", "morning, whatever 😴"])
def test_other_greetings_of_the_day_are_greetings(text: str) -> None:
    assert is_greeting(text)


@pytest.mark.parametrize("text", ["gracias crack", "bien ahí!!", "uh ok"])
def test_slang_thanks_and_hesitations_are_small_talk(text: str) -> None:
    assert is_small_talk(text)


@pytest.mark.parametrize("text", ["what documents do I need to register a car in Ireland?",
                                  "qué requisitos piden para sacar el NIE?",
                                  "do we need a visa for Vietnam if we're only there 10 days?",
                                  "necesito visado para ir a la India?"])
def test_paperwork_and_entry_rules_ask_the_web(make_router, available, text: str) -> None:
    assert "web" in make_router().named(text, available)


@pytest.mark.parametrize("text", ["do I need an umbrella today?", "necesito paraguas?",
                                  "qué documentos tengo en notas?"])
def test_needing_other_things_is_no_web_search(make_router, available, text: str) -> None:
    assert "web" not in make_router().named(text, available)


@pytest.mark.parametrize("text", ["how many days until my dentist appointment?", "cuántos días faltan para mi examen?"])
def test_counting_days_to_a_date_kept_elsewhere_is_routed(text: str) -> None:
    assert not counts_days_to_given_dates(text)


# A fourth blind set of 180 (first run after every round above: recall 0.986, all-needed 0.981, several
# skills 0.956) found an item of a numbered list named by its number, "quiero que recuerdes que…",
# explanations asked for, and compliments as thanks.
@pytest.mark.parametrize("text", ["abre el 3", "read number 2 and summarise it", "bórrame la número 4", "#5 please"])
def test_an_item_named_by_its_number_refers_back(text: str) -> None:
    assert refers_back(text)


@pytest.mark.parametrize("text", ["el 2 de junio tengo médico", "la 1 y media me va bien"])
def test_dates_and_times_are_no_numbered_item(text: str) -> None:
    assert not refers_back(text)


def test_a_wish_that_the_assistant_remembers_names_the_memory(make_router, available) -> None:
    assert "memory" in make_router().named("quisiera que tengas en cuenta que soy alérgico al polen", available)


def test_a_compliment_with_thanks_is_small_talk() -> None:
    assert is_small_talk("gracias guapa!")


# A fifth blind set of 180 (first run after every round above: recall 0.991, all-needed 0.987, several
# skills 0.980) found the timeline named by its name, texts to rewrite or correct and ideas asked for
# routed to skills, and "nice one" read as "the one" of the last answer.
@pytest.mark.parametrize("text", ["put it on my timeline", "añádelo a la línea de tiempo"])
def test_the_timeline_named_by_its_name(make_router, available, text: str) -> None:
    assert "timeline" in make_router().named(text, available)


@pytest.mark.parametrize("text", ["nice one 👍", "good job!", "well done, thanks"])
def test_praise_is_small_talk(text: str) -> None:
    assert is_small_talk(text)


# What the model does alone, found by the second, third, fourth and fifth sets: questions about words,
# counting days to dates the message gives, explanations, a text to rewrite or correct, ideas asked for.
@pytest.mark.parametrize("text", [
    "cómo se dice 'recibo' en inglés? lo necesito para el trabajo",
    "how do you spell 'accommodation'? for my cover letter",
    "qué quiere decir 'finiquito'? me lo han puesto en la nómina",
    "how many weeks until 12 August? it's the move",
    "cuántos días faltan para nochebuena?",
    "how many days between 2/3 and 19/4?",
    "explícame cómo funciona una hipoteca inversa",
    "explain the difference between a Roth and a traditional IRA",
    "proofread this before I send it to the client: 'Dear Sirs, please find…'",
    "corrige esta frase: 'ojala que llueva mañana por la tarde'",
    "suggest three titles for my talk on urban beekeeping",
    "dame ideas para un brindis en la boda de mi hermano",
    # From the ninth to eleventh sets: a word asked after an apology, other languages, a notion put plainly.
    "perdona, cómo se dice 'me duele la espalda' en alemán? tengo un cliente de Múnich",
    "what's the Welsh for 'thank you'? it's for a card",
    "explain compound interest in plain english, the bank guy lost me",
    "explícame el IRPF fácil, que no me entero",
])
async def test_what_the_model_does_alone_needs_no_skill(make_router, available, text: str) -> None:
    decision = await make_router().route(request(text), available)
    assert not decision.skills, decision.reason


@pytest.mark.parametrize(("text", "skill"), [
    ("how do you say 'see you soon' in Italian? put it in my notes", "notes"),
    ("rewrite this and email it to Ana: 'we're late again'", "email"),
])
async def test_what_the_model_does_alone_keeps_a_skill_the_message_names(make_router, available, text: str,
                                                                         skill: str) -> None:
    decision = await make_router().route(request(text), available)
    assert skill in decision.skills, decision.reason


def test_only_the_start_of_a_long_answer_is_read_for_what_it_showed() -> None:
    listed = "1. Pilates 07:30\n2. Call with Omar 11:00\n"
    assert names_shown("cancel pilates", listed + "filler " * 2000)
    assert not names_shown("cancel zumba", listed + "filler " * 2000 + "zumba")


# Sixth set (a farmer, a nurse, a food truck, a coach, a translator): the rest of what its first run missed.
@pytest.mark.parametrize(("text", "skill"), [
    ("hoy vamos al cine con los niños", "timeline"),
    ("recall what I said about the boiler", "web"),
    ("dile que apunte la cita", "timeline"),
])
def test_plans_and_remembering_are_no_log_or_search(make_router, available, text: str, skill: str) -> None:
    assert skill not in make_router().named(spelled_out(text), available)


async def test_a_message_opening_on_a_thing_the_answer_showed_leans_back_however_long(make_router,
                                                                                       available) -> None:
    decision = await make_router().route(
        request("y lo del compresor se ha vuelto a parar esta tarde o ya funciona normal?", previous=["inbox"],
                recent=["mira las alertas"], answer="2 alertas: Cámara 1: «Compresor parado» (04:10)."), available)
    assert "inbox" in decision.skills, decision.reason


@pytest.mark.parametrize("text", ["oh and add that the gate code is the usual one", "also put that she's vegan"])
def test_adding_that_to_the_thing_shown_acts_on_it(text: str) -> None:
    assert acts_on_it(text)


@pytest.mark.parametrize("text", ["bueno me voy a dormir, buenas noches", "off to bed, thanks for everything",
                                  "me has salvado, gracias!", "that's all for now, cheers"])
def test_going_to_bed_and_thanks_for_a_rescue_are_small_talk(text: str) -> None:
    assert is_small_talk(spelled_out(text))


async def test_making_a_text_sound_different_needs_only_the_model(make_router, available) -> None:
    decision = await make_router().route(request("make this sound more polite: 'pay the invoice now'"), available)
    assert not decision.skills, decision.reason


# Seventh set (a plumber, a pharmacist, a lecturer, a lorry driver, a grandmother, a hotel owner).
@pytest.mark.parametrize("text", ["buenas buenas", "morning morning ☀️"])
def test_a_greeting_said_twice_is_still_a_greeting(text: str) -> None:
    assert is_greeting(text)
    assert is_small_talk("hola hola!") and is_small_talk("gracias gracias")


@pytest.mark.parametrize("text", ["please rewrite this so it sounds less bossy: 'No shoes inside.'",
                                  "could you tell me a joke about plumbers?", "what's 30 miles in km?",
                                  "cuánto son 3 libras en kilos?"])
async def test_a_polite_rewrite_a_joke_and_a_unit_need_only_the_model(make_router, available, text: str) -> None:
    decision = await make_router().route(request(text), available)
    assert not decision.skills, decision.reason


def test_money_converted_is_not_the_model_alone() -> None:
    assert not needs_only_the_model("how much is 200 USD in euros today?")


@pytest.mark.parametrize("text", ["put that date in my notes under releases", "add that one to the list"])
def test_that_naming_which_thing_is_no_fact_added(text: str) -> None:
    assert not acts_on_it(text)


# Eighth set (a fisherman, a teacher, a developer on call, a wedding photographer, a physio, a son who
# manages his parents' appointments).
@pytest.mark.parametrize("text", ["quítame el azúcar del café", "move on to the next topic"])
def test_taking_sugar_off_or_moving_on_is_no_calendar(make_router, available, text: str) -> None:
    assert "agenda" not in make_router().named(spelled_out(text), available)


@pytest.mark.parametrize("text", ["buenos días mi niña ☀️", "morning my love", "Good afternoon."])
async def test_a_greeting_of_the_day_asks_for_the_overview(make_router, available, text: str) -> None:
    decision = await make_router().route(request(text), available)
    assert {"agenda", "tasks", "environment"} <= decision.skills, decision.reason


# Ninth, tenth and eleventh sets (a security guard, a beekeeper, a retiree in Andalucía, a wheelchair user,
# a podcast host, a landlord, a vet nurse; a taxi driver, a school principal, a consultant, a dairy farmer, a
# runner, a single dad, a nurse; a flight attendant, a winemaker, a boat restorer, a head of studies, an
# illustrator, a carer, a student).
@pytest.mark.parametrize("text", ["bos días 🌧️", "bon dia!", "buenos días a todos, y a ti", "morning all",
                                  "aye, good morning"])
def test_greetings_of_other_languages_and_to_everyone_are_greetings(text: str) -> None:
    assert is_greeting(text)


@pytest.mark.parametrize("text", ["buenos días a todos los del grupo, mándales el horario", "morning all, any mail?"])
def test_a_greeting_to_everyone_with_a_request_is_not_only_a_greeting(text: str) -> None:
    assert not is_greeting(text)


@pytest.mark.parametrize(("answer", "text", "skill"), [
    ("Sunny, 24° tomorrow. Want me to remind you to take the sun cream?", "yes please, at 8", "tasks"),
    ("Listo, guardado. ¿Quieres que lo ponga también en el calendario?", "sí, a las 10", "agenda"),
    ("Done. Shall I add his doses to the 'mum – pills' note as well?", "yes: 5mg in the morning, 10 at night",
     "notes"),
])
async def test_a_yes_to_an_offer_takes_the_offer_skills(make_router, available, answer: str, text: str,
                                                        skill: str) -> None:
    decision = await make_router().route(request(text, previous=["environment"], recent=["..."], answer=answer),
                                         available)
    assert skill in decision.skills, decision.reason


@pytest.mark.parametrize(("text", "answer"), [
    ("si llueve mañana avísame", "Mañana: nubes. ¿Algo más?"),
    ("ok thanks", "Done. Anything else?"),
    ("yes please", "Sunny all day."),
])
def test_no_offer_is_taken_up_without_a_yes_to_a_question(text: str, answer: str) -> None:
    assert not offer_taken_up(text, answer)


async def test_yes_and_more_keeps_what_was_offered(make_router, available) -> None:
    decision = await make_router().route(
        request("sí, y recuérdame el jueves comprar el regalo", previous=["agenda"], recent=["el sábado es el cumple"],
                answer="¿Lo apunto en el calendario?"), available)
    assert {"agenda", "tasks"} <= decision.skills, decision.reason


@pytest.mark.parametrize("text", ["añade que la reina es de este año", "ponle q el código es el de siempre",
                                  "add that the plumber is coming at 4"])
def test_adding_a_fact_to_the_thing_shown_leans_back(text: str) -> None:
    assert adds_to_it(text) and acts_on_it(text)


async def test_adding_a_fact_keeps_the_skill_of_the_thing_shown(make_router, available) -> None:
    decision = await make_router().route(
        request("añade q hoy la he visto más tranquila y comiendo bien", previous=["notes"],
                recent=["qué pone la nota de la gata?"], answer="«Gata»: vacunada en marzo; nerviosa con visitas."),
        available)
    assert "notes" in decision.skills, decision.reason


@pytest.mark.parametrize("text", ["apuntas que soy celíaco?", "put that date in my notes"])
def test_asking_or_naming_which_thing_is_no_fact_added(text: str) -> None:
    assert not adds_to_it(text)


async def test_searching_the_web_and_then_the_calendar_keeps_both(make_router, available) -> None:
    decision = await make_router().route(
        request("busca cuándo es el festival de jazz de Vitoria y mételo en el calendario"), available)
    assert {"web", "agenda"} <= decision.skills, decision.reason


# Twelfth set (a parish priest, a club DJ, a mountain-rescue volunteer, a student writing Spanish as a second
# language, a pharmacist, a hairdresser, a trucker).
@pytest.mark.parametrize("text", ["holaaa, buenos díaaas", "good morninggg ☀️", "ey up, morning", "hiya, good morning!"])
def test_drawn_out_and_northern_greetings_are_greetings(text: str) -> None:
    assert is_greeting(text)


@pytest.mark.parametrize("text", ["ugh, what a commute, I'm fried", "estoy frita, no puedo con mi vida"])
async def test_venting_about_the_day_needs_no_skill(make_router, available, text: str) -> None:
    decision = await make_router().route(request(text), available)
    assert not decision.skills, decision.reason


# Thirteenth set (a retired couple, a lawyer, an architect, a night nurse, a student, a baker, a tester), run
# on the code after the twelfth.
async def test_one_more_fact_keeps_what_kept_the_last(make_router, available) -> None:
    decision = await make_router().route(
        request("ah y que la del trastero es la misma pero acabada en 9", previous=["memory"],
                recent=["acuérdate de que la clave del wifi es la 4411"],
                answer="Guardado: la clave del wifi es 4411."),
        available)
    assert "memory" in decision.skills, decision.reason


# Fourteenth set (a plumber, a PhD student, a grandmother, a receptionist, a cyclist, a teacher, a nurse), run
# on the code after the thirteenth.
async def test_a_greeting_with_a_kiss_asks_for_the_overview(make_router, available) -> None:
    decision = await make_router().route(request("morning xx"), available)
    assert {"agenda", "tasks", "environment"} <= decision.skills, decision.reason

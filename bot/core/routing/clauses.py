"""How a chat message splits into requests, and whether it leans on the previous turn.

People chain requests ("check the mail and, if so, put it in my calendar"; "mira el correo y
si es así apúntalo") and answer the assistant in fragments ("y mañana?", "the second one",
"sí porfa"). The router scores each request on its own words, and only a message that
refers back inherits the previous turn's skills; thanks and small talk inherit nothing.
Rules are lexical on purpose: they are cheap, predictable and the same in Spanish and English.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from bot.core.texting import closing_question

MAX_CLAUSES = 6
# A piece shorter than this (in words) is not a request of its own: it stays with its neighbour.
MIN_CLAUSE_WORDS = 2
# An item of a terse list ("mail, calendar and weather", "tareas y alertas") is a word or two.
MAX_LIST_ITEM_WORDS = 2

# Sentence ends, semicolons and commas; "?" and "!" also open a new request in Spanish (¿ ¡).
_PUNCTUATION = re.compile(r"\s*(?:[.!?;]+(?=\s|$)|,|[¿¡])\s*")
# Words that start a new request inside a sentence. Longest first, so "and then" beats "and".
_CONNECTORS = (
    "and if so", "and if not", "and then", "if so", "if not", "if there is", "if there are",
    "and also", "and", "then", "also", "plus", "after that", "afterwards", "but",
    "y si es así", "y si es asi", "si es así", "si es asi", "si lo hay", "si los hay", "si no",
    "y luego", "y después", "y despues", "y además", "y ademas", "y también", "y tambien",
    "luego", "después", "despues", "además", "ademas", "y", "e", "pero",
    # Asides and the last item of a list, as dictated: "mira el correo, de paso dime si llueve".
    "by the way", "btw", "while you're at it", "while you are at it", "and finally", "finally", "lastly",
    "otra cosa", "y de paso", "de paso", "asimismo", "así mismo", "y por último", "y por ultimo", "por último",
    "por ultimo", "y finalmente", "finalmente",
    # Typed shorthand for "and" between the things asked for: "weather & news", "mail + calendar".
    "&", "+",
)
_CONNECTOR = re.compile(
    r"\s+(?:" + "|".join(re.escape(c) for c in sorted(_CONNECTORS, key=len, reverse=True)) + r")\s+",
    re.IGNORECASE,
)
_WORD = re.compile(r"\w+", re.UNICODE)

# Openers of an elliptical follow-up: "and tomorrow?", "y el sábado?", "what about Paris?".
_ELLIPSIS_OPENERS = (
    "and", "also", "what about", "how about", "same for", "same", "or", "then",
    "y", "e", "también", "tambien", "y qué tal", "y que tal", "qué tal", "que tal", "o", "igual",
    "lo mismo",
)
# Words that point at something said before: pronouns, "the other one", corrections, yes-please.
_REFERENCES = frozenset("""
it that those them him her one ones other others another previous first second third same again instead else
actually rather yes yeah yep sure former latter
lo le les eso esa ese esos esas esto ello aquello otro otra otros otras anterior primero primera
segundo segunda tercero tercera mismo misma sí dale venga porfa claro hazlo mejor better
ahí allí allá
""".split())
# Spanish names a thing said before by its article alone: "la del viaje", "el de las 5", "lo de ayer",
# also after the verb that acts on it ("abre el de marta", "borra la de ayer", "qué dice el de TAP").
_ARTICLE_REFERENCE = re.compile(r"^(?:(?:y|e|o|and)\s+)?(?:\w+\s+){0,2}(?:el|la|los|las|lo)\s+(?:de|del|que)\b")
# Words that only point: a fragment made of them and of references ("the second one", "la otra")
# names nothing of its own.
_POINTERS = frozenset("the a an this these el la los las lo un una uno de del ese esa este esta".split())
# An answer to "when?" ("tomorrow at 10", "el lunes por la tarde") is a fragment of the last request.
_WHEN = frozenset("""
today tonight tomorrow morning afternoon evening night noon midnight next week weekend at on in by
the this before after am pm monday tuesday wednesday thursday friday saturday sunday
hoy manana pasado esta noche tarde mediodia proximo proxima que viene semana finde a las la el de dia dias er
por en lunes martes miercoles jueves viernes sabado domingo antes despues
""".split())
_CLOCK = re.compile(r"\d{1,4}(?:am|pm|h)?")  # "10", "5pm", "21h"
MAX_WHEN_WORDS = 8
# A short question about the thing just discussed names it by nothing but grammar: "at what time?",
# "de quién es?", "who's coming?", "any from work?", "solo los urgentes". It is made of question words,
# prepositions, articles, auxiliaries and quantifiers, with at most one word of its own.
_CLOSED = frozenset("""
what when where who whom whose which why how much many long far else at on in by for from with to of about
than the a an this that these those it its is was are were be been being do does did will would can could
should has have had s any some more less only just all both each every other one ones time hour day date
que cuando donde quien quienes cual cuales cuanto cuanta cuantos cuantas como por para a al de del en con
desde hasta sobre el la los las lo un una unos unas es era fue son eran sera esta estaba estan
mas menos solo solamente tambien otro otra otros otras todo todos todas algo alguno alguna algun hora dia fecha
""".split())
_ASKS = frozenset("""
what when where who whom whose which why how any only just
que cuando donde quien quienes cual cuales cuanto cuanta cuantos cuantas como solo solamente
""".split())
# Addressed to the assistant ("who are you?", "y tú qué?"): small talk, never about the last request.
_SECOND_PERSON = frozenset("you your yourself tu tú usted ti".split())
MAX_BARE_QUESTION = 5
# Clitic endings that make a verb refer back: "bórralo", "mándaselo", "contéstale", "cambiarlo".
# Many words merely end like one ("Pablo", "Kindle", "people", "escuela"), so the verb must show
# it: an infinitive before the clitic, or the accent an imperative takes when a clitic joins it.
_CLITIC_ENDING = r"(?:me|te|se|nos)?(?:lo|la|los|las|le|les)"
# One letter before the ending is a verb only for dar, ver and ser ("darlo", "verla", "serlo"):
# otherwise it is a name ("Carlos", "Carla", "Perla").
_CLITIC_INFINITIVE = re.compile(r"(?:\w{2,}|[dvs])(?:ar|er|ir|ír)" + _CLITIC_ENDING + "$")
_CLITIC_IMPERATIVE = re.compile(r"\w*[áéíóú]\w*" + _CLITIC_ENDING + "$")
# Accented words that end like a clitic without being one ("película", "miércoles", "título", "móviles",
# "fáciles": no imperative that takes an accent ends in "-iles").
_NOT_CLITIC = re.compile(r"\w*(?:ul[oa]s?|coles)$|\w*[áéíóú]\w*iles$")
# Short imperatives with a clitic and no accent.
_BARE_CLITICS = frozenset("hazlo hazla ponlo ponla dilo dile dale dales velo quitalo".split())
# The same imperatives typed without their accent, as phones and voseo write them ("borralo",
# "mandasela", "añadile", "agendalo", "decile", "movela"). Without the accent only the verb tells
# a clitic from a word that ends like one ("escuela", "regalo", "vuelo", "móviles", "Daniela"), so
# the verbs people use on what the assistant just showed are listed (stems, without accents), each
# with the vowel its imperative ends in: -ar "a", -er "e", -ir "e" (tú) or "i" (vos).
_AR_STEMS = (
    "arregl", "ajust", "modific", "rectific",
    "mand", "envi", "reenvi", "pas", "borr", "elimin", "quit", "sac", "apunt", "anot", "agend", "agreg",
    "guard", "contest", "avis", "llam", "cambi", "cancel", "adelant", "retras", "program", "reserv", "confirm",
    "mir", "revis", "cheque", "busc", "cerr", "copi", "edit", "actualiz", "marc", "complet", "termin", "archiv",
    "orden", "recuerd", "record", "descart",
)
_ER_STEMS = ("pon", "pospon", "mov", "muev", "le", "respond", "met")
_IR_STEMS = ("escrib", "dec", "anad", "abr", "compart", "resum", "traduc", "corrig")
_CLITIC_UNACCENTED = re.compile(
    r"(?:(?:" + "|".join(_AR_STEMS) + r")a|(?:" + "|".join(_ER_STEMS) + r")e|(?:" + "|".join(_IR_STEMS) + r")[ei])"
    + _CLITIC_ENDING + "$")
# Two clitics ("pasamelo", "mandaselas") are a verb's whatever its stem; shorter words ("Pamela") are not.
_DOUBLE_CLITIC = re.compile(r"\w+[aei](?:me|te|se|nos)(?:lo|la|los|las)$")
MIN_DOUBLE_CLITIC = 7
# Thanks, greetings-goodbye and acknowledgements: never a request by themselves.
_SMALL_TALK = frozenset("""
thanks thank you thx ty tysm ta thanx thnx cheers great perfect nice cool ok okay fine good awesome lol haha
hi hello hey bye goodnight np no problem nah that s all it much so very oye oiga whatever crack uh um hmm bueno
guapo guapa
aye x xx xxx wow omg oh ah ugh oops wild crazy amazing interesting funny weird lovely brilliant fantastic sad
hola gracias muchas mil genial perfecto guay vale ok okey bien muy estupendo jaja jajaja jeje
adiós adios chao chau nada eso es todo de acuerdo nop no déjalo olvídalo
vaya ostras hala uf buah flipante increíble brutal buenísimo joe jo
jesus jesús jeez gosh blimey crikey yikes oof damn dang joder hostia jolín jolines caray caramba dios puf buf
hijo hija cariño cielo majo maja mate bro hun hon hen jefe jefa ya
chacho mijo mija god lord nomás pal buddy bud dude ho klk habari gracies
miarma asere pet hinny pana parce güey wey alright alreet areet awright hm mm mmm maje po pues dale hiya simón
anyway anyways anyhow listo legend braw magic nojoda chévere sale mae aupa
compa compadre comadre nen nena ace grand merci diolch fos che
bacán bacan sweet stoked tuanis reet gert lush innit then
máquina maquina fiera figura campeón campeon hágale hagale uy preciate appreciated respect ñaño ñaña
loco loca wao guau champion sorted
love luv cher mamita mamacita mami papito papi weon weón huevón huevon manito causa broder chamo chama mijito
mijita hermano hermanito sweetie sweetheart darling babe duck lad lass jevi bor macizo ños ñoos verdad exacto
exactly ome ahh ohh ideay eh marra primo prima nde quillo
""".split())
# Words of the list above that are there only for the phrases they build ("thank you so much", "eso
# es todo", "de acuerdo"): alone they thank nobody, and one may name an object ("todo?" is the to-do list).
_GLUE = frozenset("that s all it much so very muchas mil muy eso es todo de then".split())
# Declining an offer ("want me to add it?" "nah, leave it") is small talk too: nothing to do.
# ("Night night" is read as "night": a word said twice says it once.)
_SMALL_TALK_PHRASES = ("good night", "night", "nighty night", "nite", "night all", "see you", "see you tomorrow",
                       "see you soon", "see ya", "hasta luego",
                       "hasta mañana", "buenas noches",
                       "nos vemos", "sounds good", "all good", "de nada", "me alegro", "qué bien", "que bien",
                       "leave it", "forget it", "never mind", "no need", "don't bother", "dont bother",
                       "skip it", "no thanks", "not now", "da igual", "no hace falta", "no importa",
                       "así está bien", "ahora no",
                       # Asking after the assistant, and closing for the day, ask for nothing either.
                       "and you", "how about you", "what about you", "y tú", "y tú qué tal", "y a ti",
                       "tú qué tal", "y tú cómo estás", "y vos", "y usted",
                       # Answering "how are you?": "por aquí" is where the user is, not a place to search near.
                       "todo bien por aquí", "por aquí todo bien", "todo bien por acá", "por acá todo bien",
                       "todo tranquilo", "todo tranquilo por aquí", "all good here", "all good on my end",
                       "how are you", "how are you doing", "how are you today", "how are you doing today",
                       "how s it going", "how is it going", "how s your day", "how s your day going", "how s thee",
                       "how are thee",
                       "how is your day going", "what s up", "that s all", "that s it", "that s all for today",
                       "that s all for now", "that s it for today", "that s it for now",
                       "qué tal", "qué tal estás", "qué tal estás hoy", "y tú qué tal estás", "qué tal andas",
                       "cómo andas", "cómo vas", "qué tal te va", "cómo estás", "cómo estás hoy", "cómo te va",
                       "cómo va todo",
                       "how are things", "how have you been", "how you doing", "how are you holding up",
                       "qué tal todo", "eso es todo por hoy", "eso es todo por ahora", "nada más por hoy",
                       "por hoy nada más", "nada más", "es todo",
                       # Signing off until later: "hablamos" alone would name the memory of past talks.
                       "talk later", "talk to you later", "talk soon", "talk tomorrow", "speak soon", "ttyl",
                       "catch you later", "later", "take care", "have a good one", "have a good day",
                       "have a nice day", "sweet dreams", "hablamos", "hablamos luego", "luego hablamos",
                       "mañana hablamos", "hablamos mañana", "ya hablamos", "luego te digo", "ya te digo",
                       "cuídate", "que descanses", "descansa", "descansá", "rest up", "get some rest", "buen finde",
                       "buen fin de semana", "que vaya bien",
                       # Hellos of the north of England: "ay up, morning!!"; and of Mexico and Colombia.
                       "ay up", "ey up", "eh up", "hiya", "qué onda", "qué hubo", "quiubo", "qué pasa",
                       # "Ya con eso": that is all that was needed.
                       "ya con eso", "con eso", "con eso basta", "con eso me vale", "con eso me sirve",
                       # Costa Rica's hello and thanks; and "me too".
                       "pura vida", "me too", "same here", "yo también", "yo igual",
                       "un saludo", "saludos",
                       # Wishing a good day, evening or weekend on leaving says goodbye; it asks for none of them.
                       "have a good weekend", "have a nice weekend", "have a great weekend", "enjoy your weekend",
                       "have a good evening", "have a nice evening", "enjoy your evening", "have a good night",
                       "que tengas un buen día", "que tengas buen día", "que pases un buen día", "que pases buen día",
                       "que tengas una buena tarde", "que tengas buena noche", "que pases una buena noche",
                       "buen fin de semana", "feliz fin de semana",
                       # Portuguese, typed beside Spanish: thanks and goodbyes ("valeu", "até amanhã").
                       "obrigado", "obrigada", "muito obrigado", "muito obrigada", "valeu", "tchau", "até logo",
                       "até amanhã", "até mais", "boa noite", "tudo bem", "beleza",
                       # Spain's other languages: Basque, Galician, Catalan ("eskerrik asko", "grazas", "gràcies").
                       "eskerrik asko", "eskerrik asko bihotzez", "mila esker", "agur", "grazas", "moitas grazas",
                       "gràcies", "moltes gràcies", "adéu",
                       # Thanks said as a blessing, or in full: "dios le pague", "thanks a million", "diolch yn fawr".
                       "dios le pague", "dios te pague", "dios se lo pague", "dios te lo pague", "que dios te lo pague",
                       "que dios se lo pague", "thanks a million", "thanks a mil", "diolch yn fawr", "merci beaucoup",
                       "de verdad", "en serio", "appreciate it", "much appreciated", "preciate it",
                       # Shrugging at news one expected: "ah sure what else is new 😂".
                       "what else is new", "ah sure", "sure look", "lo de siempre", "nada que ver",
                       "madre mía de mi alma", "dios mío", "ay dios", "sos lo máximo", "eres lo máximo",
                       "you re the man", "now then",
                       # Kiwi "sweet as" (fine), Central America's "a la gran" and Puerto Rico's "ay bendito" (oh my).
                       "sweet as", "a la gran", "a la gran puchica", "ay bendito",
                       # The West Country's "proper job" (well done), and "thats it" typed without its apostrophe.
                       "proper job", "thats it", "thats all", "nope thats it", "nope",
                       # The River Plate's "de diez" (great).
                       "de diez",
                       # The day remarked on: "gert lush day innit", "lovely day, isn't it".
                       "lush day", "lovely day", "gorgeous day", "beautiful day", "nice day",
                       "isn t it", "que buen día", "qué día más bueno", "qué día más bonito",
                       # The heat or the cold remarked on ("fos qué calor. bueno gracias"): nothing to look up.
                       "qué calor", "qué frío", "qué calorazo", "qué calor hace", "qué frío hace",
                       # Whom thanks or a greeting is said to, fondly: "buenos días mi niño", "ta, my love".
                       "mi niño", "mi niña", "mi amor", "mi vida", "mi rey", "mi reina", "my love", "my dear",
                       "así nomás", "déjalo así", "dejalo así", "perfecto así", "así está perfecto", "así perfecto",
                       "así vale", "así está bien", "asi vale",
                       # Reactions to an answer: "that" is what was just said, not an object to act on.
                       "qué fuerte", "madre mía", "no me digas", "no way", "no kidding", "bien ahí", "bien ahi",
                       "nice one", "good one", "well done", "good job", "great job",
                       "gracias igual", "gracias de todas formas", "thanks anyway", "thanks anyways",
                       # Kind words for the assistant, and the user's own deed once shown how ("ya está hecho").
                       "eres muy amable", "eres un sol", "qué amable", "muy amable", "you re very kind",
                       "you re a star", "you re the best", "ya lo he hecho", "ya está hecho", "ya lo hice",
                       "ya me salió", "ya funciona", "done it", "done it now", "i did it", "it worked",
                       "that worked",
                       # Venting about one's day asks for sympathy, not for what the day held ("qué día llevo").
                       "what a day", "what a week", "what a morning", "what a night", "long day", "long week",
                       "rough day", "rough week", "tough day", "tough week", "bad day", "crazy day",
                       # Not a bare "qué día": "¿qué día?" asks which day the last answer meant.
                       "qué día llevo", "qué semana llevo", "qué día más largo",
                       # A day announced as big, beside a greeting: "morning!! big day today".
                       "big day", "big day today", "big day tomorrow", "gran día", "gran día hoy", "día grande",
                       "vaya día", "vaya día llevo", "vaya semana", "vaya semana llevo", "vaya semanita",
                       "vaya semanita llevo", "menudo día", "menudo día llevo", "menuda semana",
                       "menuda semana llevo", "menudo día hoy",
                       # Off to bed, and thanks for a rescue: nothing to do.
                       "me voy a la cama", "me voy para la cama", "me voy a dormir", "a dormir", "a la cama",
                       "qué sueño", "qué sueño tengo", "off to bed", "going to bed", "heading to bed",
                       "time for bed", "bedtime", "me has salvado", "me salvaste", "you saved me",
                       "you re a lifesaver", "lifesaver", "por ahora", "for now",
                       "thanks for everything", "thank you for everything", "gracias por todo",
                       # The clock and the calendar date are core (always on): no skill to choose.
                       # Laughing at an answer, and how much it meant: "jajaja ya me hiciste reír", "that means a lot".
                       "me hiciste reír", "me has hecho reír", "me hiciste el día", "me alegraste el día",
                       "you made me laugh", "made me laugh", "you made my day", "made my day", "that means a lot",
                       "means a lot", "eso significa mucho", "significa mucho", "significa mucho para mí",
                       # Whom it is said to, as a mate: "klk mi loco", "gracias mi pana".
                       "mi loco", "mi loca", "mi pana", "mi hermano", "mi hermana", "mi bro", "mi socio", "mi llave",
                       "mi amigo", "mi amiga",
                       # Ireland's "dead on", Minnesota's "you betcha", Australia's "too easy", Mexico's "no manches";
                       # "eso mismo" (just that); leaving it to memory ("nah forget it, I'll remember").
                       "dead on", "you betcha", "too easy", "no manches", "no mames", "eso mismo", "ese mismo",
                       "that s the one", "es verdad", "ah verdad", "i ll remember", "i ll remember it",
                       "ya me acordaré", "ya me acuerdo yo", "me hiciste reír un montón", "me hiciste reír un resto",
                       # Glad of the assistant: "no sé qué haría sin ti", "just what I needed", "thanks ever so".
                       "no sé qué haría sin ti", "no sé qué haría sin vos", "no sé qué haría yo sin ti",
                       "don t know what i d do without you", "dont know what id do without you",
                       "justo lo que necesitaba", "justo lo que necesitaba leer", "justo lo que necesitaba oír",
                       "justo lo que necesitaba leer hoy", "justo lo que necesitaba oír hoy", "just what i needed",
                       "just what i needed to hear", "just what i needed today", "thanks ever so", "ideay vos",
                       "how s your day been", "how has your day been", "how was your day",
                       # A question announced ("oye, pregunta seria, …"), and asking what to tell someone who asked.
                       "pregunta seria", "una pregunta", "una pregunta seria", "una duda", "una consulta",
                       "quick question", "serious question", "real talk", "honest question", "no me falles",
                       "qué le digo", "qué les digo", "what do i tell her", "what do i tell him", "va gracias",
                       # Agreeing with an answer, and Andalusia's praise ("quillo qué arte tienes").
                       "that s about right", "thats about right", "qué arte tienes", "qué arte", "menudo arte",
                       "de una",
                       "what time is it", "what s the time", "what day is it", "what day is today",
                       "what s the date", "what s the date today", "what s today s date",
                       "qué hora es", "qué día es hoy", "qué día es", "a qué día estamos", "qué fecha es hoy")
# A greeting of the time of day on its own opens it: people expect what is on (agenda, tasks, weather), so it is
# routed on its evidence like a request. Around a request it is only noise to that request's scores.
_GREETING_PHRASES = ("good morning", "good afternoon", "good evening", "morning", "mornin", "good mornin",
                     "buenos días", "buenas tardes", "g day", "gday", "buenas", "buen día", "bom dia", "boa tarde",
                     # The greetings of Spain's other languages, typed beside Spanish: "bos días", "bon dia", "egun on".
                     "bos días", "bo día", "boas tardes", "bon dia", "bona tarda", "egun on",
                     # Welsh, and a hello of the American south: "bore da!", "howdy".
                     "bore da", "prynhawn da", "noswaith dda", "howdy",
                     # Basque afternoon and evening, and a greeting typed half plural ("buenas días").
                     "arratsalde on", "gabon", "kaixo", "buenas días", "buen días",
                     # Asturian: "buenos díes ho".
                     "buenos díes", "bonos díes", "bones tardes",
                     # Belfast's "bout ye", and good mornings typed in French, Italian or German beside them.
                     "bout ye", "about ye", "how about ye", "bonjour", "buongiorno", "guten morgen")
# Whom a greeting is said to: "buenos días a todos, y a ti", "morning all", "good morning to you".
# ("Morning la", "buenas tío", "illo buenas": said to a mate, in Liverpool, Spain or Seville.)
_GREETED = frozenset("a todos todas ti vos usted everyone everybody all folks you to y gente team equipo "
                     "la tío tía tio tia illo".split())


def _plain(text: str) -> str:
    """Lower case without accents, so "Sí" and "si" compare equal."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


_STRETCHED = re.compile(r"([aeiouys])\1+\b")  # "buenos diass", "holaaa", "graciasss"
_DRAWN_OUT = re.compile(r"([^\W\d_])\1{2,}")  # "buenos diaaas", "morninggg": no word has a letter three times


def _squeezed(plain: str) -> str:
    """`plain` with letters drawn out said once: how messages are read, so the word lists are read so too ("see
    you" and "me too" end in a doubled vowel, which a message's "seee" or "tooo" is squeezed to)."""
    return _STRETCHED.sub(r"\1", _DRAWN_OUT.sub(r"\1", plain))


# The word lists without accents, computed once (each message is checked against them).
_PLAIN_SMALL_TALK = frozenset(form for word in _SMALL_TALK for form in (_plain(word), _squeezed(_plain(word))))
_PLAIN_GLUE = frozenset(_plain(word) for word in _GLUE)
# Longest first: "how are you doing today" goes whole, not as "how are you" leaving "doing today".
_PLAIN_SMALL_TALK_PHRASES = tuple(sorted((_squeezed(_plain(" ".join(_WORD.findall(phrase.lower()))))
                                          for phrase in _SMALL_TALK_PHRASES), key=len, reverse=True))
_PLAIN_GREETINGS = tuple(sorted((_squeezed(_plain(phrase)) for phrase in _GREETING_PHRASES), key=len, reverse=True))
_PLAIN_OPENERS = tuple(_plain(opener) for opener in _ELLIPSIS_OPENERS)
# A two-word greeting and the one word that addresses someone ("good morning ji", "buenos días jefe"), perhaps
# after "my" ("buenos días mi arma", "morning my love").
_ADDRESSED_GREETING = re.compile(r" (?:" + "|".join(re.escape(g) for g in _PLAIN_GREETINGS if " " in g)
                                 + r") (?:(?:mi|my) )?\w+ ")
_PLAIN_REFERENCES = frozenset(_plain(word) for word in _REFERENCES)


# A quotation: what to write, post, translate or search for ("tweet 'the rain stopped'"),
# not a request to route. It opens after a space and closes before one; a word's apostrophe
# ("didn't") does neither. One quoted word (a file name, a title) is kept: it names the object.
_QUOTATION = re.compile(r"""(?:(?<=[\s(:])|^)(['"‘“«])(?=\S)(.+?)(?<=\S)['"’”»](?=[\s.,;:!?)]|$)""")


def without_quotations(text: str) -> str:
    """The message with quoted passages of several words replaced by an ellipsis."""
    return _QUOTATION.sub(lambda found: found.group(0) if len(found.group(2).split()) < 2 else "…", text)


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _pieces(text: str) -> list[str]:
    """The message cut at punctuation and connectors, before short pieces are joined up."""
    pieces: list[str] = []
    for sentence in _PUNCTUATION.split(text.strip()):
        pieces.extend(part for part in _CONNECTOR.split(f" {sentence} ") if part.strip())
    return [piece for piece in (part.strip(" ,.;:-") for part in pieces) if piece]


def split_clauses(text: str) -> tuple[str, ...]:
    """The requests of a message, in order (one item when it holds one request)."""
    clauses: list[str] = []
    for piece in _pieces(text):
        if clauses and len(words(piece)) < MIN_CLAUSE_WORDS:
            clauses[-1] = f"{clauses[-1]} {piece}"
        elif clauses and len(words(clauses[-1])) < MIN_CLAUSE_WORDS:
            clauses[-1] = f"{clauses[-1]} {piece}"
        else:
            clauses.append(piece)
    if len(clauses) > MAX_CLAUSES:
        clauses = [*clauses[: MAX_CLAUSES - 1], " ".join(clauses[MAX_CLAUSES - 1:])]
    return tuple(clauses) or (text.strip(),)


def list_items(text: str) -> tuple[str, ...]:
    """The items of a terse list ("weather, news", "correo y agenda"), or nothing when the message is not one.

    `split_clauses` joins a lone word to its neighbour ("bread and milk" is one request), but a
    list of the things one wants to see names a skill per item; the router scores each item only
    on evidence past that skill's threshold, so a list of groceries adds nothing.
    """
    pieces = _pieces(text)
    if len(pieces) < 2 or any(len(words(piece)) > MAX_LIST_ITEM_WORDS for piece in pieces):
        return ()
    return tuple(pieces[:MAX_CLAUSES])




def _normal(text: str) -> str:
    # ("buenas buenas", "gracias gracias": a word said twice says it once.)
    return " " + _squeezed(_plain(" ".join(_once(words(text))))) + " "


def _once(found: list[str]) -> list[str]:
    return [word for i, word in enumerate(found) if i == 0 or word.lower() != found[i - 1].lower()]


@dataclass(frozen=True)
class _PhraseList:
    """Phrases to take out of a text, longest first. Only those whose every word the text has can be in it,
    and a text has few words while the lists have hundreds of phrases: each word says which to try."""

    phrases: tuple[str, ...]
    words: tuple[frozenset[str], ...]
    by_word: Mapping[str, tuple[int, ...]]

    @classmethod
    def of(cls, phrases: tuple[str, ...]) -> _PhraseList:
        words = tuple(frozenset(phrase.split()) for phrase in phrases)
        by_word: dict[str, list[int]] = {}
        for position, found in enumerate(words):
            for word in found:
                by_word.setdefault(word, []).append(position)
        return cls(phrases, words, {word: tuple(positions) for word, positions in by_word.items()})

    def taken_from(self, plain: str) -> str:
        present = set(plain.split())
        for position in sorted({i for word in present for i in self.by_word.get(word, ())}):
            if self.words[position] <= present:
                plain = plain.replace(f" {self.phrases[position]} ", " ")
        return plain


_SMALL_TALK_PHRASE_LIST = _PhraseList.of(_PLAIN_SMALL_TALK_PHRASES)
_GREETING_LIST = _PhraseList.of(_PLAIN_GREETINGS)


_TODAY = frozenset(("hoy", "today"))


def is_small_talk(text: str) -> bool:
    """Thanks, acknowledgements and goodbyes only ("perfect, thanks!", "vale gracias").

    A greeting with nothing but small talk around it ("buenos días!", "hi, thanks") is not:
    it asks for the day's overview (see `is_greeting`).
    """
    if is_greeting(text):
        return False
    plain = _normal(text)
    found = _SMALL_TALK_PHRASE_LIST.taken_from(plain).split()
    if found != plain.split():
        # Asking after the assistant "today" ("y tú qué tal estás hoy?") still asks for nothing.
        found = [word for word in found if word not in _TODAY]
    if not found:
        return bool(words(text))
    if found == plain.split() and all(word in _PLAIN_GLUE for word in found):
        return False  # no phrase of thanks or farewell, only the words such phrases are made of
    return all(word in _PLAIN_SMALL_TALK for word in found)


def is_greeting(text: str) -> bool:
    """A greeting, perhaps with thanks or small talk, and nothing else ("buenos diass ☀️", "morning!")."""
    plain = _SMALL_TALK_PHRASE_LIST.taken_from(_normal(text))
    if not any(f" {g} " in plain for g in _PLAIN_GREETINGS):
        return False
    rest = [word for word in _GREETING_LIST.taken_from(plain).split() if word not in _PLAIN_SMALL_TALK]
    if not rest or all(word in _GREETED for word in rest):
        return True
    return (len(rest) == 1 or (len(rest) == 2 and rest[0] in ("mi", "my"))) and _ADDRESSED_GREETING.fullmatch(
        plain) is not None


MAX_AFTER_GREETING = 5


def opens_with_a_greeting(text: str) -> bool:
    """A greeting of the day and a few words after it ("buenos días, qué hay para hoy?"): the day's overview
    is still what the greeting asks for, beside the rest."""
    plain = _normal(text)
    for greeting in _PLAIN_GREETINGS:
        if plain.startswith(f" {greeting} "):
            return 0 < len(plain[len(greeting) + 1:].split()) <= MAX_AFTER_GREETING
    return False


def is_elliptical(text: str) -> bool:
    """A fragment that only makes sense with the previous turn: "y mañana?", "and Paris?"."""
    # (An exclamation before it leaves it a fragment: "madre mía. ¿y el domingo?".)
    found = words(without_small_talk(text))
    if not found:
        return False
    if len(found) <= 2 and not is_small_talk(text):
        return True  # "mañana?", "the second", "a las 8"
    # An acknowledgement before a fragment leaves it a fragment ("ok and the price?", "vale, y el
    # sábado?"); what is left must still look like one, not merely be short ("thanks a lot").
    while len(found) > 1 and _plain(found[0]) in _PLAIN_SMALL_TALK and not is_small_talk(text):
        found = found[1:]
    if len(found) <= MAX_WHEN_WORDS and all(_plain(word) in _WHEN or _CLOCK.fullmatch(word) for word in found):
        return True  # "tomorrow at 10", "el lunes a las 8", "el día 28 a las 10"
    if _asks_the_count_again(found):
        return True  # "and how many the day before?", "¿y cuántos el martes?"
    if len(found) > 5:
        return len(found) <= MAX_WHEN_WORDS and _continues_with_a_thing(text, [_plain(word) for word in found])
    if all(_plain(word) in _PLAIN_REFERENCES or word in _POINTERS for word in found):
        return True  # "the second one", "la otra", "that one"
    plain = " ".join(_plain(word) for word in found)
    if any(plain == opener or plain.startswith(f"{opener} ") for opener in _PLAIN_OPENERS):
        return True
    return _is_bare_question(text, [_plain(word) for word in found])


# "and so does Aaliyah in 5th", "y Marta también": the last request again, for another.
_SAME_AGAIN = frozenset(("so does", "so do", "so is", "so are", "so has", "so have", "so did", "so was"))
MAX_OPENED_FRAGMENT = 6
"""Of a fragment opened by "and"/"y" and a thing, the words it may have when it is no question."""


_HOW_MANY = ("how many", "how much", "cuantos", "cuantas", "cuanto", "cuanta")


def _asks_the_count_again(found: list[str]) -> bool:
    """"And how many the day before?": the last count asked again, for another time."""
    plain = [_plain(word) for word in found]
    if len(plain) < 3 or plain[0] not in ("and", "y") or len(plain) > MAX_WHEN_WORDS:
        return False
    rest = plain[3:] if " ".join(plain[1:3]) in _HOW_MANY else plain[2:] if plain[1] in _HOW_MANY else []
    return bool(rest) and all(word in _WHEN or word in _DAYS_AGO or _CLOCK.fullmatch(word) for word in rest)


# Days counted from the last one asked about: "the day before", "el día anterior", "yesterday".
_DAYS_AGO = frozenset("day days yesterday ayer anteayer anterior last previous week month mes".split())


_PLACE_WORDS = frozenset("en in at para pa for con with".split())


def _continues_with_a_thing(text: str, found: list[str]) -> bool:
    """A longer fragment opened as one: "and the week of the Bergen conference?", "and a Greggs on the way",
    "y la semana del congreso?", "and so does Aaliyah in 5th". ("And the kids need picking up at 5" says
    something new: without a question it may have only a few words.)"""
    rest = found[1:] if found[0] in ("and", "y", "e") else []
    if rest[:1] == ["so"] and " ".join(rest[:2]) in _SAME_AGAIN:
        return True
    if rest and rest[0] in _PLACE_WORDS and text.rstrip().endswith("?"):
        return True  # "y en santa rosa acá en chiclayo?", "and at the Ashby one?": the same, somewhere else
    if not rest or rest[0] not in _POINTERS or rest[0] in ("de", "del", "this", "these", "esta", "este"):
        return False
    return text.rstrip().endswith("?") or len(found) <= MAX_OPENED_FRAGMENT


def _is_bare_question(text: str, found: list[str]) -> bool:
    """A short question (or a restriction: "only the big ones") with at most one word of its own."""
    if len(found) > MAX_BARE_QUESTION or any(word in _SECOND_PERSON for word in found):
        return False
    if not (text.rstrip().endswith("?") or text.lstrip().startswith("¿") or found[0] in _ASKS):
        return False
    return sum(word not in _CLOSED for word in found) <= 1


# An item of the last answer named by its sender or owner alone: "open Sam's", "what does Sam say?",
# "qué dice Hacienda". Nothing in it names a skill; only the last turn says what Sam's is.
_NAMED_ITEM = re.compile(
    r"^(?:(?:and|ok|so|y|vale)\s+)?(?:"
    r"(?:open|read|show(?:\s+me)?|delete|forward|reply\s+to|answer|abre|lee(?:me)?|borra|contesta\s+a)\s+"
    r"(?!(?:it|that|what|there|here|let|he|she)['’]s\b)\w+['’]s"
    r"|what\s+(?:does|did)\s+(?!(?:the|it|this|that|you|i|we|they|he|she)\b)\w+\s+(?:say|want|ask)"
    r"|(?:qu[eé]|q)\s+(?:dice|dec[ií]a|quiere|quer[ií]a|pone|cuenta)\s+(?:(?:el|la)\s+del?\s+(?:(?:el|la)\s+)?)?"
    r"(?!(?:el|la|los|las|un|una|mi|tu|su)\b)\w+"
    r")\W*$")
# An item of the last answer's numbered list: "lee el 2", "open number 3", "the 2nd one", "#4". Not a date or
# a time ("el 2 de mayo", "la 1 y media", "el 3:30").
_NUMBERED_ITEM = re.compile(
    r"^(?:(?:and|ok|so|y|vale)\s+)?(?:\w+\s+)?"
    r"(?:(?:el|la|los|las)\s+(?:n[uú]mero\s+)?|(?:the\s+)?(?:number|item|no\.?)\s+|#)"
    r"\d{1,2}(?:st|nd|rd|th|º|ª|o|a)?(?!\s*(?:de\b|del\b|of\b|y\b|:|h\b|am\b|pm\b|[.,]\d))")
# "it" that stands for nothing said before: "what time is it in Tokyo?" asks the clock.
_EXPLETIVE_IT = re.compile(r"\b(?:what|which) (?:time|day|date) is it\b")


def picks_a_listed_item(text: str, answer: str = "") -> bool:
    """Whether the message picks an item of the last answer's numbered list ("guarda el 2 en…", "open number 3",
    "knock off 1 and 4" after a list numbered 1 to 4)."""
    return bool(_NUMBERED_ITEM.match(text.strip().lower())) or (
        bool(answer) and (_names_listed_numbers(text, answer) or _names_an_item_by_a_word(text, answer)))


# An item called by a word of it and "one": "save the lamb one into my notes", "open the Leeds one".
_WORD_ONE = re.compile(r"\b(?:the|that) ([^\W\d_]{3,}) one\b", re.IGNORECASE)


def _names_an_item_by_a_word(text: str, answer: str) -> bool:
    named = {_plain(m.group(1)) for m in _WORD_ONE.finditer(text)} - _PLAIN_COMMON
    if not named:
        return False
    shown = {_plain(word) for word in words(answer[:MAX_SHOWN_CHARS])}
    return bool(named & shown)


_LIST_LINE = re.compile(r"^\W{0,3}(\d{1,2})[.)]\s", re.MULTILINE)
# A number that stands alone: not a time, a date, an amount or a measure ("at 4", "4 May", "4 km", "4.5").
_BARE_NUMBER = re.compile(r"(?<![\w:.,/-])(?<!\bat )(?<!\bby )(?<!\blas )(?<!\buntil )(?<!\btill )(?<!@)(\d{1,2})"
                          r"(?![\w:.,/%°€$£-])(?!\s*(?:am|pm|h|hrs?|hours?|horas?|mins?|"
                          r"minutes?|minutos|km|kg|de|del|of|y media|o'?clock)\b)", re.IGNORECASE)
MAX_PICKING_WORDS = 12


def _names_listed_numbers(text: str, answer: str) -> bool:
    listed = {int(number) for number in _LIST_LINE.findall(answer[:MAX_SHOWN_CHARS])}
    if len(listed) < 2 or len(words(text)) > MAX_PICKING_WORDS:
        return False
    picked = {int(m.group(1)) for m in _BARE_NUMBER.finditer(text)}
    return bool(picked) and picked <= listed


# An item of the list just shown, asked to be done: "do #3 now", "haz la 2", "encárgate del 4", "sort number 1".
_DOES_ITEM = re.compile(
    r"\b(?:do|handle|sort(?:\s+out)?|take\s+care\s+of|deal\s+with|go\s+ahead\s+with|action|haz(?:me)?|h[aá]gale|"
    r"enc[aá]rgate\s+de(?:l|\s+la|\s+lo\s+del?)?|oc[uú]pate\s+de(?:l|\s+la)?|dale\s+(?:con|a)(?:l|\s+la)?)\s+"
    r"(?:#|number\s+|no\.?\s*|item\s+|the\s+|el\s+|la\s+|lo\s+del?\s+)?(\d{1,2})(?!\s*(?:am|pm|h|:|[.,]\d))\b",
    re.IGNORECASE)
_LIST_ITEM_LINE = re.compile(r"^\W{0,3}(\d{1,2})[.)]\s+(.{1,200})$", re.MULTILINE)


def items_to_do(text: str, answer: str) -> tuple[str, ...]:
    """The lines of the last answer's numbered list that the message asks to be done ("do #3 now" after
    "3. Email Shauna the report"): what they say is what the turn must do."""
    asked = {int(found.group(1)) for found in _DOES_ITEM.finditer(text)}
    if not asked or not answer:
        return ()
    return tuple(line for number, line in _LIST_ITEM_LINE.findall(answer[:MAX_SHOWN_CHARS]) if int(number) in asked)


# The pieces of a message between its commas and stops, each with its own end ("…set it off, does it say?").
_PIECE = re.compile(r"[^.,;:!?¿¡]+[.!?]*")


def ends_leaning_back(text: str) -> bool:
    """Whether a later piece of the message asks about, or acts on, what the last turn showed ("aye that was me.
    what set it off, does it say?", "…se me rajó una tapa? búscalo ahí")."""
    pieces = [piece.strip() for piece in _PIECE.findall(text) if piece.strip()]
    return any((piece.endswith("?") or refers_back(piece)) and is_elliptical(piece) and not is_small_talk(piece)
               for piece in pieces[1:])


# The last request again with more things: "throw in razor blades n talc too", "y pilas también".
_TOO = re.compile(r"(?<!\bme )\b(?:too|as well|también|tambien)\W*$", re.IGNORECASE)


def refers_back(text: str) -> bool:
    """Whether the message leans on what was said before (pronouns, "the second one", "sí", "… too")."""
    if is_small_talk(text):
        return False
    if _TOO.search(text) and len(words(text)) > 2:
        return True
    if is_elliptical(text) or _NAMED_ITEM.match(text.strip().lower()) or _NUMBERED_ITEM.match(text.strip().lower()):
        return True
    found = words(_EXPLETIVE_IT.sub(" ", " ".join(words(text))))
    if _ARTICLE_REFERENCE.match(" ".join(found)):
        return True
    return any((_plain(word) in _PLAIN_REFERENCES and not _is_if(found, position)) or _has_clitic(word)
               for position, word in enumerate(found))


_WHAT_IT_SAYS = re.compile(r"^\W*(?:(?:y|and|vale|ok|oye)\W+)?(?:(?:qu[eé]|q)\s+(?:dice|pone|cuenta)\s+(?:de|del|sobre|"
                           r"acerca)|what\s+(?:does|did)\s+it\s+say\s+(?:about|on|of))\b", re.IGNORECASE)


def asks_what_it_says(text: str) -> bool:
    """Whether the message asks what the thing just shown says about something ("q dice de la limpieza del
    ciclón?", "what does it say about the warranty?")."""
    return bool(_WHAT_IT_SAYS.match(text))


def opens_on_a_thing_said(text: str) -> bool:
    """Whether the message opens by pointing at a thing by its article ("lo de la válvula…", "el de TAP…"):
    however long the rest, it is about that thing."""
    return bool(_ARTICLE_REFERENCE.match(" ".join(words(text)).lower()))


def continues_on_a_thing_said(text: str) -> bool:
    """Whether the message opens with "and" and a thing named by its article alone ("y la de la semana pasada…",
    "y el del martes…"): another of the things the last answer spoke of."""
    found = words(text)
    return len(found) > 2 and _plain(found[0]) in ("y", "e") and _plain(found[1]) in ("el", "la", "los", "las", "lo") \
        and _plain(found[2]) in ("de", "del", "que")


def _is_if(found: list[str], position: int) -> bool:
    """Whether an unaccented "si" is "if", not "yes": "yes" opens a reply or follows an acknowledgement
    ("si porfa", "vale si") or closes it ("dile que si"); "if" sits inside a request ("mira si llueve",
    "fijate si tengo algo") and points back at nothing."""
    if found[position] != "si" or position == len(found) - 1:
        return False
    return position > 0 and _plain(found[position - 1]) not in _PLAIN_SMALL_TALK


def _has_clitic(word: str) -> bool:
    """A Spanish verb with an object pronoun attached ("bórralo", "cambiarlo", "hazlo")."""
    if _plain(word) in _BARE_CLITICS:
        return True
    if len(word) < 5 or _NOT_CLITIC.fullmatch(word):
        return False
    plain = _plain(word)
    return bool(_CLITIC_INFINITIVE.fullmatch(word) or _CLITIC_IMPERATIVE.fullmatch(word)
                or _CLITIC_UNACCENTED.fullmatch(plain)
                or (len(plain) >= MIN_DOUBLE_CLITIC and _DOUBLE_CLITIC.fullmatch(plain)))


def without_small_talk(text: str) -> str:
    """The message without the greetings and thanks around its requests ("buenos días! qué
    tengo hoy?" -> "qué tengo hoy"), or the message itself when that is all it says."""
    pieces = [piece.strip(" ,.;:-") for piece in _PUNCTUATION.split(text.strip())]
    pieces = [piece for piece in pieces if piece]
    kept = [piece for piece in pieces if not is_small_talk(piece) and not is_greeting(piece)]
    return " ".join(kept) if kept and len(kept) < len(pieces) else text


# Auxiliaries open questions ("is it raining?", "does it open today?"), not acts on a thing.
_AUXILIARIES = frozenset("is was are were do does did will would can could should has have had must may might".split())
_NAMED_OBJECT = re.compile(r"\ba\s+(?:[A-ZÁÉÍÓÚÑ]\w*|mi|mis|tu|tus|su|sus|la|el|los|las)\b")
_OPENING_ACKNOWLEDGEMENTS = frozenset("ok okay vale and y then luego now ahora bueno pues so oh ah also plus".split())
# What an English verb acts on when it is the thing just shown.
_SHOWN_OBJECTS = frozenset(("it", "them"))
# Verbs that add a fact to the thing just shown: "add that it's at the Garden Café", "put that she's vegan".
# "That" opens the fact there; "put that date in my notes" and "delete that one" say which thing instead.
_ADDS_THAT = frozenset("add put say mention write note include specify".split())
_FACT_OPENERS = frozenset("it she he they we i you there the my our his her their".split())
# The same in Spanish, where "que" opens the fact: "añade que ya está vacunada", "ponle q es a las 5".
_ADDS_QUE = frozenset("añade anade añadele anadele agrega agregale pon ponle mete metele apunta apuntale "
                      "escribe escribele incluye incluyele indica".split())


# A yes that opens a reply: "sí", "yes pls", "dale", "aye". (Unaccented "si" is "if" before a clause: "si
# llueve avísame"; it is a yes before a pause, a plea or a when: "si, a las 3", "si porfa".) Thanks are no
# yes: "ok thanks" after "anything else?" closes the talk.
_YES_OPENING = re.compile(
    r"^\W*(?:s[íi]+(?=\s*(?:$|[,.!]|porfa|por favor|please|pls|y\b|claro|dale|gracias|a las?\b|para\b|el\b|la\b|"
    r"ma[ñn]ana|hoy|esta\b|este\b))|s[íi]{2,}|sí|yes|yeah|yep|yup|yas|aye|sure|claro|dale|venga|please|pls|porfa|"
    # ("Ya" is "yes, go on" in Chile and "yeah" typed fast: "ya check"; "ya no" says no.)
    r"go ahead|do it|hazlo|ok(?:ay|ey)?|vale|ya(?!\s+no\b)|sim[oó]n)\b", re.IGNORECASE)
_THANKS = re.compile(r"\b(?:thanks|thank|thx|ty|gracias|grax)\b", re.IGNORECASE)


def offer_taken_up(text: str, answer: str) -> str:
    """The offer the last answer ended on ("Want me to remind you to take the sun cream?"), when the message
    says yes to it ("yes please, at 8"); otherwise "". What the offer would do is what the yes asks for."""
    if not _YES_OPENING.match(text) or _THANKS.search(text):
        return ""
    return closing_question(answer)


# A no to an offer because what was done is enough: "no, con el aviso me sobra", "nah, the reminder's enough".
_NO_OPENING = re.compile(r"^\W*(?:no+|nah|nope|nop)\b", re.IGNORECASE)
_ENOUGH = re.compile(r"\b(?:basta|sobra|suficiente|vale|me sirve|est[aá] bien|enough|will do|"
                     r"(?:is|'s) (?:fine|plenty|ok|okay|good))\W*$", re.IGNORECASE)
MAX_DECLINE_WORDS = 8


def declines_offer(text: str, answer: str) -> bool:
    """Whether the message turns down the offer the last answer ended on, what was done being enough."""
    return (bool(_NO_OPENING.match(text)) and bool(_ENOUGH.search(text)) and len(words(text)) <= MAX_DECLINE_WORDS
            and bool(closing_question(answer)))


# The last answer asked for a detail: "Sure — when?", "¿a qué hora te aviso?", "which one?".
_ASKS_DETAIL = re.compile(r"\b(?:when|what time|which|where|who|how (?:long|much|many|often)|cu[aá]ndo|a qu[eé] hora|"
                          r"qu[eé] d[ií]a|cu[aá]l|d[oó]nde|qui[eé]n|cu[aá]nt[oa]s?)\b", re.IGNORECASE)
MAX_DETAIL_WORDS = 7  # "after work tmrw so like 2ish"


_QUESTION = re.compile(r"[^.?!¿]*\?")
MAX_ASKED_CHARS = 240


def answers_its_question(text: str, answer: str) -> bool:
    """Whether a few words give the detail the last answer asked for ("Sure — when? The showing is at 4."
    "an hour before")."""
    asked = _QUESTION.findall(answer[-MAX_ASKED_CHARS:])
    question = asked[-1] if asked else ""
    found = words(text)
    return (bool(question) and bool(_ASKS_DETAIL.search(question)) and 0 < len(found) <= MAX_DETAIL_WORDS
            and not is_small_talk(text) and not needs_only_the_model(text))


def says_yes_and_more(text: str, answer: str) -> bool:
    """Whether the message says yes to an offer the last answer made and goes on: "sí, y recuérdame…", "yes
    please, and add…"."""
    return bool(offer_taken_up(text, answer)) and len(words(text)) > 2


# One more fact for the thing just kept: "ah y que el de la puerta del patio es el mismo", "and that she's vegan".
_AND_THAT = re.compile(r"^\W*(?:(?:ah|oh|ay|uy|vale|ok|oye)\W+)?(?:y|e|and)\s+(?:tambi[eé]n\s+|also\s+)?"
                       r"(?:que|q|that)\s+[^\W\d_]"
                       # "oh and the council inspector came round": one more thing that happened, for the same record.
                       r"|^\W*(?:ah|oh|ay|uy)\W+(?:y|e|and)\s+(?:also\s+|tambi[eé]n\s+)?"
                       r"(?:the|my|our|el|la|los|las|mi|mis|nuestr[oa]s?)\s+[^\W\d_]", re.IGNORECASE)


def goes_on_with_a_fact(text: str) -> bool:
    """Whether the message adds one more fact to what the last turn kept ("ah y que…", "and that…")."""
    return bool(_AND_THAT.match(text))


def adds_to_it(text: str) -> bool:
    """Whether the message opens by adding a fact to the thing just shown ("añade que…", "add that it's…")."""
    found = words(text)
    while found and _plain(found[0]) in _OPENING_ACKNOWLEDGEMENTS:
        found = found[1:]
    if len(found) < 3:
        return False
    first = _plain(found[0])
    return ((first in _ADDS_QUE and _plain(found[1]) in ("que", "q"))
            or (first in _ADDS_THAT and found[1] == "that" and found[2] in _FACT_OPENERS))


# "Add the Spotted Cat, Fri the 12th, 6 to 9" after a note was shown: an add that names no place of its own adds to
# the thing just shown. ("Add eggs to the shopping list" names its place.)
_ADDS = re.compile(r"^\W*(?:(?:ok|okay|vale|and|y|also|tambi[eé]n|now|ahora|oh|ah)\W+)*(?:add|a[ñn]ade|agrega|"
                   r"stick|pop|throw\s+in|put|pon|mete|apunta)\b", re.IGNORECASE)
_A_PLACE = re.compile(r"\b(?:to|into|onto|on|in|en|a|al|para)\s+(?:(?:my|the|your|a|an|mi|mis|la|el|tu|tus|una?|los|"
                      r"las|this|that|esta|este)\s+)?(?:[\w'-]+\s+){0,2}?(?:list|lists|note|notes|calendar|agenda|diary|"
                      r"todo|to-do|todos|reminders?|lista|listas|nota|notas|calendario|tareas|pendientes|file|doc|"
                      r"compra|shopping|memory|memoria)\b", re.IGNORECASE)


def adds_with_no_place(text: str) -> bool:
    """Whether the message adds something without saying where ("add the Spotted Cat, Fri the 12th")."""
    return bool(_ADDS.match(text)) and not _A_PLACE.search(text)


# A correction of what was just done, opened as one ("noo el miércoles", "ah no espera, a las 9 y media", "wait,
# make that half 10", "sorry, it was 8 not 7"): about the same thing, whatever day or figure it gives.
_CORRECTION_OPENING = re.compile(
    r"^\W*(?:(?:ah|oh|uy|ay|ops|oops)\W+)?(?:no+\b(?:\W+no+\b)?|wait|espera|actually|perdona|perd[oó]n|sorry|"
    r"i meant|quise decir|quer[ií]a decir)", re.IGNORECASE)
_DAY_OR_FIGURE = frozenset(_plain(word) for word in """
lunes martes miercoles jueves viernes sabado domingo manana hoy finde monday tuesday wednesday thursday friday
saturday sunday tomorrow today tonight weekend half media cuarto quarter
""".split())
MAX_CORRECTION_WORDS = 12


def corrects_it(text: str) -> bool:
    """Whether the message corrects the day, time or figure of what was just done ("no, el miércoles")."""
    found = words(text)
    return (bool(_CORRECTION_OPENING.match(text)) and len(found) <= MAX_CORRECTION_WORDS
            and any(_plain(word) in _DAY_OR_FIGURE or any(char.isdigit() for char in word) for word in found))


def acts_on_it(text: str) -> bool:
    """Whether the message opens with a verb whose object is the thing just shown: a Spanish verb with
    its clitic ("añádele al final…", "mándaselo a Marta y…") or an English verb and "it", "them" or "that"."""
    found = words(text)
    while found and _plain(found[0]) in _OPENING_ACKNOWLEDGEMENTS:
        found = found[1:]
    if not found or is_small_talk(text):
        return False
    if _has_clitic(found[0]):
        # "le" doubles an object the message names itself ("mándale un correo a Ana", "añádele a la lista").
        return not (_plain(found[0]).endswith(("le", "les")) and _NAMED_OBJECT.search(text))
    return len(found) > 1 and found[0] not in _AUXILIARIES and (found[1] in _SHOWN_OBJECTS or adds_to_it(text))


# Words too common to say which thing of an answer a message means ("have", "this", "para").
_COMMON = frozenset("""
have this that these those with from what when where which there their them they will would could should
about just like want need make also then than into some more only very here your yours mine please today
tomorrow tonight week time para pero como esta este estos estas tengo tienes tiene desde hasta sobre todo
todos cuando donde porque quiero puedes puede hacer algo nada otra otro mucho muy bien ahora hoy mañana
semana tarde noche también monday tuesday wednesday thursday friday saturday sunday lunes martes miércoles
jueves viernes sábado domingo
""".split())
_PLAIN_COMMON = frozenset(_plain(word) for word in _COMMON)
MIN_SHOWN_LETTERS = 4
# The start of the last answer that is read for what it showed: a list the user acts on comes first, and a
# long answer must not make routing cost grow with it.
MAX_SHOWN_CHARS = 4000
_ACRONYM = re.compile(r"\b[A-Z]{2,}\b")


_CODE_NAME = re.compile(r"(?<![\w-])[a-z]{1,4}-?\d{1,4}(?![\w-])")


def names_shown(text: str, answer: str) -> bool:
    """Whether the message names something the last answer showed ("cancel book club" after a list of
    the day's events, "open the sourdough one" after a list of posts)."""
    if not answer:
        return False
    shown = {_plain(word) for word in words(answer[:MAX_SHOWN_CHARS])}
    # A short name in capitals ("TAP", "NHS", "BBVA") is as telling as a long word.
    acronyms = {word.lower() for word in _ACRONYM.findall(text)}
    # A code-like name, letters and digits joined ("abre el de la c-37"), names the item that shows it.
    if any(code in answer[:MAX_SHOWN_CHARS].lower() for code in _CODE_NAME.findall(text.lower())):
        return True
    # ("read me brads": Brad's, its apostrophe left out.)
    return any((len(word) >= MIN_SHOWN_LETTERS or word in acronyms) and word not in _PLAIN_COMMON
               and (word in shown or (len(word) > MIN_SHOWN_LETTERS and word.endswith("s") and word[:-1] in shown
                                      and word[:-1] not in _PLAIN_COMMON))
               for word in (_plain(found) for found in words(text)))



# What the model does from what it knows or from the text it is given: what a word means, how it is said,
# spelt or translated, what a thing is or how it works, rewriting or correcting a text, ideas to write with.
# The words asked about name no skill ("how do you say 'invoice'", "explícame qué es el IBI y quién lo
# paga", "rewrite this so it sounds friendlier: '…'").
_MODEL_ALONE = re.compile(
    # (An apology for asking may come first: "perdona, cómo se dice…", "sorry, what's the Welsh for…".)
    # (Or someone's question passed on: "mi chamaco me pregunta de dónde viene…", "my flatmate asks how…".)
    r"^\W*(?:(?:mi|my|un|una|a) \w+ (?:\w+ )?(?:me pregunta|me pregunt[oó]|pregunta|asks(?: me)?|asked(?: me)?|"
    r"is asking|"
    r"wants to know|quiere saber)\W+)?"
    r"(?:(?:oye|hey|hi|hola|habari|oiga|pregunta|una pregunta|quick question|quick one|sorry|excuse me|perdona|"
    r"perdone|disculpa|disculpe|"
    r"qu[eé] pena(?: con usted| contigo)?)\W+)?"
    r"(?:(?:kindly|please|pls|por favor|can you|could you|puedes|podr[ií]as|me puedes)\s+)?"
    r"(?:c[oó]mo se (?:dice|escribe|pronuncia|traduce)|qu[eé] (?:significa|quiere decir)|"
    # The time in another city: the clock (core) and what everyone knows of time zones.
    r"what(?:'?s| is) the time (?:now )?(?:in|over in) |what time is it (?:now )?(?:in|over in) |"
    r"(?:qu[eé]|q) hora es (?:ahora )?(?:en|all[aá] en) |"
    # A rhyme, and "how d'ye say…".
    r"(?:dime|dame|decime|d[ií]game)\s+(?:una|unas|alguna|algunas)\s+rimas?\b|(?:what|anything)\s+rhymes\s+with\b|"
    r"(?:give\s+me\s+)?a\s+rhyme\s+for\b|how\s+(?:d'?ye|do\s+ye|d'you|'d\s+you)\s+say\b|"
    # Whether it knows what a thing is, and why a thing is called so: "tú sabes lo q es un torcedor?", "xq le dicen
    # medialuna a la medialuna?".
    r"(?:(?:t[uú]|vos)\s+)?sab[eé]s\s+(?:lo\s+)?(?:qu[eé]|q)\s+(?:es|son)\s+(?:un|una|el|la|los|las)\s|"
    r"(?:por\s*qu[eé]|xq|pq|porque)\s+(?:le|les|se)\s+(?:dicen|llaman|llama|dice)\s|"
    r"why\s+(?:is|are|do\s+(?:they|we|people)\s+call)\s+[^?]{1,40}?\s+called\s|"
    # The user's opinion asked for: "q opinas, merece la pena…?", "what's your take on…".
    r"(?:y )?(?:t[uú] )?(?:qu[eé]|q) opin[aá]s|"
    r"(?:t[uú] |vos )?(?:qu[eé]|q) (?:t[uú] |vos )?(?:crees|cre[eé]s|piensas|pens[aá]s|dec[ií]s)(?= ?[,?])|"
    r"(?:qu[eé]|q) (?:crees|cre[eé]s|piensas|pens[aá]s) t[uú]|(?:t[uú] )?(?:qu[eé]|q) dices(?= ?,)|"
    r"en tu opini[oó]n|what(?:'s| is) your (?:take|opinion)|"
    # The weekday a date falls on: the calendar of the world, core's. "¿Qué día cae el 4 de julio este año?"
    r"(?:[^?]{0,30} )?(?:en )?(?:qu[eé]|q) d[ií]a (?:de la semana )?(?:cae|caer[aá])|"
    r"what day (?:of the week )?(?:is|does|will) [^?]{1,30}? (?:fall|land) on|"
    # A unit named by its article: "cuánto es un parsec en años luz", "what's a mile in km".
    r"(?:cu[aá]nto|what(?:'s| is)) (?:es |son )?(?:un|una|a|an|one) [^\d\W]+(?: [^\d\W]+)? (?:en|in) [^\d\W]+|"
    # Words for someone in another language: "cómo le digo a un paciente en inglés '…'".
    r"c[oó]mo (?:le |les )?(?:digo|dir[ií]a|puedo decir|se le dice)\b[^.?!]{0,40}? en (?:ingl[eé]s|espa[ñn]ol|"
    r"castellano|franc[eé]s|alem[aá]n|italiano|portugu[eé]s|catal[aá]n|gallego|euskera|chino|[aá]rabe|ruso)|"
    r"how (?:would|do|should|can) (?:i|you) (?:say|tell)\b[^.?!]{0,40}? in (?:english|spanish|french|german|italian|"
    r"portuguese|catalan|basque|galician|chinese|arabic|russian|polish)|"
    # The same in Catalan, typed beside Spanish: "com es diu…", "què vol dir…".
    r"com (?:es|se) diu|com s'escriu|qu[eè] vol dir|"
    r"what does (?:\S+ ){1,4}?(?:actually |really )?mean\b|how do (?:you|i|we) (?:say|spell|pronounce|translate)|"
    r"wh(?:a|i)t(?:'?s| is) the (?:english|spanish|french|german|italian|portuguese|irish|gaelic|welsh|catalan|"
    r"galician|basque|dutch|greek|latin|japanese|chinese|arabic|hindi|russian|polish|sanskrit|hebrew|turkish|swahili|korean|"
    r"quechua|nahuatl|guaran[ií]|tagalog|maori|hawaiian) (?:name |word )?(?:for|fur)|"
    r"expl[ií]ca(?:me|nos)? (?:qu[eé]|c[oó]mo|por qu[eé]|la diferencia)|"
    r"explain (?:to me )?(?:what|how|why|the difference)|"
    # A notion explained plainly: "explain compound interest in plain English", "explícame el IRPF fácil".
    r"explain [^.?!]{1,60}? (?:in plain english|in simple (?:terms|words)|simply|like i'?m (?:five|5))|"
    r"expl[ií]ca(?:me|nos)? [^.?!]{1,60}? (?:f[aá]cil|sencillo|en cristiano|de forma sencilla|para tontos)\b|"
    r"(?:rewrite|reword|rephrase|proofread|polish|shorten) (?:this|that|it|the following)|"
    r"make (?:this|that|it) (?:sound|read|look) |haz que (?:esto |eso )?suene |"
    # The best way to do a thing, and whether a saying is true: "hows the best way to fix a ding?", "is it true
    # you shouldn't swim after eating or is that a myth". (The best way to get somewhere is a route.)
    r"(?:what(?:'?s| is)|how(?:'?s| is)) the best way to (?!get (?:to|from|there|home|back|into town)\b|go\b)|"
    r"cu[aá]l es la mejor (?:forma|manera) de (?!llegar|ir\b)|"
    r"(?:is it true|es verdad|es cierto)\b[^?]{0,80}\b(?:or (?:is that|is it) (?:just )?(?:a )?myth|"
    r"o es (?:un )?mito|o es (?:una )?leyenda)|"
    # How many of one unit make another: "cuántos kilos es una arroba?", "how many ounces in a pound".
    r"(?:cu[aá]nt[oa]s|how many) [^\d\W]+ (?:es|son|hay en|tiene|is|are|in|make) (?:un|una|a|an|one) [^\d\W]+\b|"
    # What everyone can know: capitals, the year a thing was founded, the difference between two notions.
    r"(?:cu[aá]l es la capital de|what(?:'s| is) the capital of|capital (?:of|de)) |"
    r"(?:en )?qu[eé] a[ñn]o (?:se )?(?:fund[oó]|naci[oó]|muri[oó]|construy[oó]|invent[oó]|descubri[oó]|empez[oó]|"
    r"termin[oó]|fue fundad[oa]|fue construid[oa])\b|"
    r"what year (?:was|did|were) [^?]{1,60}? (?:founded|born|built|invented|discovered|die|died|start|end)\b|"
    r"(?:qu[eé]|cu[aá]l es la) diferencia (?:hay )?entre |what(?:'s| is) the difference between |"
    # Where a word or a saying comes from: "de dónde viene la palabra vainilla?", "is 'pull your weight'
    # originally a bell-ringing phrase?".
    r"(?:de d[oó]nde viene|(?:el|cu[aá]l es el) origen de) "
    r"(?:la palabra|la expresi[oó]n|el dicho|el nombre|el refr[aá]n)|"
    r"where (?:does )?(?:the )?(?:word|phrase|saying|expression|name)\b|(?:the )?(?:origin|etymology) of (?:the )?"
    r"(?:word|phrase|saying|expression|name)\b|is ['\"‘“].{1,60}?['\"’”] (?:originally|really|actually)\b|"
    # How to say a quoted line in any language: "how would you say 'thank you' in Diné bizaad?".
    r"how (?:would|do|should|can) (?:i|you|we) say ['\"‘“«].{1,80}?['\"’”»] in\b|"
    r"explain [^.?!]{1,40}? (?:vs|versus)\b|expl[ií]ca(?:me)? [^.?!]{1,40}? (?:vs|versus|contra)\b|"
    # A joke: "tell me a joke about lorry drivers".
    # Sums of the user's own figures: "whats 143 rides at £4 each", "cuánto son 12 cajas a 8 € cada una".
    # (Or multiplied out: "cuánto es 37 cajas x 6 botellas x 8900 cada una?".)
    r"(?:what'?s|what is|how much is|cu[aá]nto (?:es|son|da)) \d[\d.,]* (?:[^\W\d]+ ){0,2}(?:x|×|\*|times|por) "
    r"\d[\d.,]*|"
    r"(?:what'?s|what is|how much is|cu[aá]nto (?:es|son)) \d[\d.,]* (?:[^\W\d]+ ){0,3}(?:at|a) [£$€]?\s?\d[\d.,]*"
    r"(?: ?(?:[£$€]|euros?|pounds?|dollars?|pesos?))? ?(?:each|cada un[oa]|per|por|la unidad)\b|"
    r"tell (?:me|us) a joke|cu[eé]ntame un chiste|"
    # A fact or a curiosity to pass the time: "contame un dato de tango", "tell me a fun fact about octopuses".
    r"(?:cu[eé]ntame|contame|dime|decime|tell (?:me|us)|give (?:me|us))\s+(?:un|una|a|an|some|otro|otra|another)\s+"
    r"(?:fun\s+|random\s+|interesting\s+)?(?:dato|datos|curiosidad|curiosidades|fact|facts|trivia)\b|"
    r"(?:give|tell) (?:me|us) (?:a|an|some) (?:[\w-]+ )?(?:pun|riddle|"
    r"limerick|haiku|poem|rhyme|tongue twister)s?\b|"
    # How to explain a thing to someone: "cómo le explico a un periodista qué es un castell?".
    r"c[oó]mo (?:le|les|se lo) explico\b|how (?:do|would|should|can) i explain\b|"
    # Which of two wordings is right: "se dice 'el mar' o 'la mar'?", "is it 'fewer' or 'less' here?".
    r"se (?:dice|escribe) [^?]{1,40}? [ou]\b|(?:which|what) is (?:correct|right)\b|is it correct to say|"
    r"cu[aá]l es (?:la forma )?correct[oa]|"
    # Today's date: the clock, core's. "whats todays date again", "a qué fecha estamos".
    r"what(?:'?s| is) (?:today'?s date|the date today)|(?:qu[eé]|q) (?:d[ií]a|fecha) es hoy|"
    r"(?:corr[ií]ge(?:me)?|reescribe(?:me)?|rees?cr[ií]beme|mejora(?:me)?) (?:esto|este|esta|eso|el texto|la frase)|"
    r"(?:give me|suggest|come up with) (?:a few|some|\d+|two|three|four|five) "
    r"(?:ideas|lines|names|options|titles|ways)|"
    r"dame (?:unas? |algunas? |\d+ |dos |tres |cuatro |cinco )?(?:ideas|opciones|nombres|t[ií]tulos|frases)|"
    # Ideas asked for by their purpose: "ideas pa el cumple de mi roommate?", "gift ideas for my dad?".
    r"(?:(?:gift|present|regalo) )?ideas (?:de regalo |para regalar |for a gift )?(?:para|pa|for) )\b",
    re.IGNORECASE)


# A unit converted ("what's 65 mph in km/h?", "cuánto son 5 libras en kilos"); money is not (its rate is today's).
# ("what's 72 in celsius?": the unit converted from goes without saying.)
_CONVERSION = re.compile(r"^\W*(?:what(?:'?s| is)|how much is|how many \w+ (?:is|are)|cu[aá]nto (?:es|son)) [\d.,]+ ?"
                         r"(?:[^\W\d_/°]+ ){0,2}(?:in|en) [a-z/°]+"
                         # The figure first: "15 grados celsius cuánto es en fahrenheit?", "72F what's that in C",
                         # "80 fahrenheit cuántos grados son?".
                         r"|^\W*[\d.,]+ ?(?:[^\W\d]+ ){0,2}(?:(?:cu[aá]nto (?:es|son)|how much is (?:that|it)|"
                         r"what(?:'s| is) (?:that|it)) (?:en|in) [a-z/°]+|cu[aá]nt[oa]s [^\W\d]+ (?:es|son)\b)"
                         # The unit asked for first: "¿cuántos kilos son 35 toneladas cortas?", "how many feet is 40 m".
                         r"|^\W*(?:cu[aá]nt[oa]s|how many) [^\W\d]+ (?:es|son|is|are|in|make) [\d.,]+ ?[^\W\d_]",
                         re.IGNORECASE)
# ("Today" is no money: "85 F en centígrados? hoy va a estar pesado" converts a temperature.)
_MONEY = re.compile(r"[$€£¥]|\b[A-Z]{3}\b|(?i:\b(?:euros?|dollars?|d[oó]lares|pounds? sterling|pesos?|yen|rate|"
                    r"exchange|cambio)\b)")


# What a text asked of the model alone is for: "… in english? for an email", "…, para un correo". It names the
# thing the text will go in, not a skill to use. "De aquí al 15" counts from now, not from a place.
# ("…, pa la clase de hoy, fáciles": a word or two of how it should be may follow.)
_PURPOSE = re.compile(r"[\s,?]+(?:for|para|pa)\s+(?:an?|un|una|the|el|la|my|mi)\s+\w+(?:\s+\w+){0,3}?"
                      r"(?:\s*,\s*\w+(?:\s+\w+)?)?\W*$"
                      r"|\bde aqu[ií] (?:a|al|hasta)\b", re.IGNORECASE)


def after_the_question(text: str) -> str:
    """What a message says after its first question ("…cuántos grados son? el termómetro nuevo…"), or the
    message itself when it asks nothing with a question mark."""
    _, mark, rest = text.partition("?")
    return rest if mark and rest.strip() else text if not mark else ""


def without_purpose(text: str) -> str:
    """`text` without the purpose said at its end ("…? for an email"), and "de aquí al…" said of time."""
    return _PURPOSE.sub(" ", text).strip()


# Kind words asked for on a bad day: "dime algo bonito, hoy perdimos un paciente", "cheer me up, the gig was a
# disaster". What went wrong is why, not a thing to log or look up.
# (Asked first or last: "…lost Mr Evans this morning. tell me something nice", "…3 parciales, dame ánimos porfa".)
_COMFORT = re.compile(
    r"\b(?:cheer me up|an[ií]mame|dame [aá]nimos?|give me (?:some )?(?:encouragement|a pep talk)|"
    r"(?:say|tell me) something (?:nice|kind|good|happy|positive|uplifting|to cheer me up)|"
    r"(?:dime|decime|cu[eé]ntame|contame) (?:algo|cosas) (?:bonit[oa]s?|lind[oa]s?|buen[oa]s?|positiv[oa]s?|"
    r"(?:que|q) me (?:levante|anime|alegre|suba)|(?:pa|para) (?:animarme|alegrarme|subirme el [aá]nimo))|"
    # To be heard out: "quiero desahogarme del día que tuve", "I need to vent about work".
    r"desahogarme|(?:need|want|have) to vent|let me vent|can i vent|(?:need|want) (?:a|to) rant|"
    # Company asked for: "cuéntame algo anda, que me aburro", "entertain me, I'm bored".
    r"(?:cu[eé]ntame|contame) algo(?!\s+(?:de|del|sobre|acerca|que|q)\b)|me aburro|estoy aburrid[oa]|"
    r"i'?m (?:so )?bored|"
    r"entertain me|"
    # A hug asked for: "had 3 hen parties in today, I need a cwtch", "necesito un abrazo".
    r"i (?:need|could do with|could use) a (?:hug|cwtch|cuddle)|(?:necesito|dame) un abrazo)\b",
    re.IGNORECASE)


def asks_for_comfort(text: str) -> bool:
    """Whether the message asks for kind words ("dime algo bonito…", "cheer me up"): small talk, whatever it tells."""
    return bool(_COMFORT.search(text))


# News promised for later: "dale, mañana te cuento cómo salió la cena", "I'll let you know how the scan goes".
# What it will be about is no request; a second clause may still make one ("…, y apúntame el lunes").
_PROMISED_NEWS = re.compile(
    r"^\W*(?:(?:dale|vale|ok|okay|bueno|listo|sale|va|right|cool|alright|sure)\W+)*"
    r"(?:(?:ma[ñn]ana|luego|despu[eé]s|ya|m[aá]s tarde|el lunes|esta noche)\s+te\s+(?:cuento|digo|contar[eé])|"
    r"te\s+(?:cuento|digo)\s+(?:ma[ñn]ana|luego|despu[eé]s|m[aá]s tarde)|"
    r"(?:i'?ll|i will|will)\s+(?:let you know|tell you|fill you in|update you)(?:\s+(?:later|tomorrow|tonight))?)"
    r"(?:\s+(?:c[oó]mo|qu[eé]|lo de|si|how|what|if|whether)\b[^,;.!?]{0,60})?[\W]*$",
    re.IGNORECASE)


# Who asked, said after the question ("…? que me lo ha preguntado un crío", "…, got a yank asking"): no request.
_WHO_ASKED = re.compile(
    r"^\W*(?:(?:que|q|porque|pq|xq|cos|because|as)\s+)?(?:me\s+lo\s+(?:ha|han)\s+preguntado|me\s+lo\s+pregunt[oó]|"
    r"me\s+(?:lo\s+)?pregunta(?:n)?|(?:i'?ve\s+)?got\s+(?:a|an|some|my)\s+[\w-]+\s+asking|"
    r"(?:my|a|an)\s+[\w-]+\s+(?:asked|is\s+asking|asks)(?:\s+me)?|"
    # Someone asking from the place asked about: "…? the owner's calling from there", "me llama desde allá".
    r"(?:the|my|a|an|el|la|mi)\s+[\w-]+(?:'s|\s+is|\s+are)\s+(?:calling|ringing|phoning|texting)\s+(?:me\s+)?from\s+there|"
    r"(?:me\s+)?(?:llama|est[aá]\s+llamando|escribe)\s+desde\s+(?:all[aá]|all[ií]|ah[ií]))\b[^,;.!?]{0,40}$",
    re.IGNORECASE)
# A question to the assistant about itself: "you ever been hot? like actually hot", "¿tú duermes?".
_ABOUT_YOU = re.compile(
    r"^\W*(?:(?:lol|haha|jaja\w*|ok|okay|cool|so|and|y|oye|hey)\W+)*(?:(?:have|do|did|are|were|can|could|would)\s+|d')?"
    r"you\s+(?:ever\s+(?:been|had|seen|felt|tried|wanted|get|got|think|thought|wonder|wondered)|"
    r"(?:like|love|feel|dream|sleep|eat)\b|"
    r"get\s+(?:hot|cold|bored|tired|lonely)|(?:have|got)\s+a\s+name)"
    # Its name: "what's your name?", "¿tú tienes nombre o cómo te digo?".
    r"|^\W*(?:(?:lol|haha|ok|okay|so|and|hey)\W+)*what(?:'?s|\s+is|\s+do\s+i\s+call)\s+(?:your\s+name|you)\b"
    # Its tastes: "ideay vos, cuál es tu ritmo favorito?", "what's your favourite film?".
    r"|^\W*(?:(?:\w+)\W+){0,3}(?:cu[aá]l|qu[eé]|what|which)(?:'?s|\s+is|\s+es)?\s+(?:tu|your)\s+\w+(?:\s+\w+)?\s+"
    r"(?:favorit[oa]|preferid[oa]|favou?rite)\b|^\W*(?:(?:\w+)\W+){0,3}(?:what|which)(?:'?s|\s+is)?\s+your\s+"
    r"favou?rite\b"
    r"|^\W*(?:(?:oye|y|jaja\w*|che|eh|ey)\W+)*(?:(?:t[uú]|vos)\W+)?(?:(?:nunca|no|tambi[eé]n)\s+)?"
    r"(?:te\s+has\s+(?:sentido|enamorado|aburrido)|"
    r"(?:sientes|sent[ií]s|sue[ñn]as|so[ñn][aá]s|duermes|dorm[ií]s|comes|com[eé]s|te\s+aburres|te\s+aburr[ií]s|"
    r"te\s+cansas|te\s+cans[aá]s|descansas|descans[aá]s|(?:tienes|ten[eé]s|tiene)\s+(?:alg[uú]n\s+)?nombre|"
    r"c[oó]mo\s+te\s+(?:llamas|llam[aá]s|digo|dicen|puedo\s+llamar))\b)", re.IGNORECASE)
# What the assistant is, asked anywhere in a piece: "mi nieta me pregunta si vos sos persona o máquina", "tú eres
# del Atleti o del Madrid?", "are you a real person?".
_WHAT_YOU_ARE = re.compile(
    r"\b(?:(?:t[uú]|vos|usted)\s+)?(?:eres|sos)\s+(?:una\s+)?(?:persona|humano|humana|m[aá]quina|robot|real)\s+o\b"
    r"|\bare\s+you\s+(?:a\s+)?(?:real\s+)?(?:person|human|bot|robot|machine)\b"
    r"|\b(?:t[uú]|vos)\s+(?:eres|sos)\s+(?:m[aá]s\s+)?(?:del?|de\s+la|de\s+los)\s+\w+\s+o\s+(?:del?|de\s+la|de\s+los)\b",
    re.IGNORECASE)


def says_who_asked(text: str) -> bool:
    """Whether a clause only says who asked the question before it ("que me lo ha preguntado un crío")."""
    return bool(_WHO_ASKED.match(text))


# Off to bed, and why: "buenas noches, me voy a acostar q mañana entro a las 6", "night, off to bed cos early start".
_OFF_TO_BED = re.compile(
    r"^\W*(?:(?:buenas\s+noches|good\s?night|night|nite|all|everyone|bueno|vale|ok|okay|well|right|ya)\W+)*"
    r"(?:me\s+voy\s+a\s+(?:acostar|dormir|descansar|la\s+cama|sobar|planchar\s+la\s+oreja)|me\s+acuesto|me\s+voy\s+pa(?:ra)?\s+la\s+cama|"
    r"(?:i'?m\s+)?(?:off|heading|going|away)\s+to\s+(?:bed|sleep|kip)|bedtime|hitting\s+the\s+(?:sack|hay))"
    r"(?:\W+(?:que|q|porque|pq|xq|ya\s+que|cos|coz|cause|'cause|because|as|since)\s+[^,;.!?]{0,60})?[\W]*$",
    re.IGNORECASE)


# How worn out the user is, said alone: "ay bendito estoy muerta del cansancio 😩", "I'm absolutely knackered".
_WORN_OUT = re.compile(
    r"^\W*(?:(?:ay|uf|puf|buf|ugh|oof|man|bro|t[ií]o|lol|jaja\w*|dios|madre\s+m[ií]a|ay\s+bendito|honestly|god)\W+)*"
    r"(?:estoy|ando|me\s+siento|i'?m|i\s+am|feeling|i\s+feel)\s+"
    r"(?:(?:so|tan|re|bien|muy|super|s[uú]per|completely|absolutely|totally|bloody|proper|dead|well|un\s+poco)\s+)*"
    r"(?:muert[oa]|reventad[oa]|agotad[oa]|molid[oa]|hech[oa]\s+polvo|cansad[oa]|rendid[oa]|fundid[oa]|"
    r"destruid[oa]|frit[oa]|knackered|shattered|exhausted|wrecked|beat|wiped(?:\s+out)?|tired|cream\s+crackered|"
    r"done\s+in|buggered|cooked|fried|drained|zonked|pooped|bushed|spent)"
    r"(?:\s+(?:del|de)\s+(?:cansancio|sue[ñn]o)|\s+(?:today|tonight|hoy|ya))?[\W]*$",
    re.IGNORECASE)
# A day or a week exclaimed at: "a la gran, que semana mas pesada vos", "qué día más largo llevo".
_DAY_EXCLAIMED = re.compile(
    r"^\W*(?:(?:a\s+la\s+gran|uf|puf|buf|ay|dios|madre\s+m[ií]a|jo|buah|uy|chuta|hijole|[oó]rale)\W+)*"
    r"(?:qu[eé]|vaya|menud[oa])\s+(?:d[ií]a|d[ií]ita|semana|semanita|mes|tarde|noche|ma[ñn]ana|finde|turno|jornada|"
    r"temporada)\s+(?:m[aá]s\s+|tan\s+)?[^\W\d_]+"
    r"(?:\s+(?:vos|t[ií]o|t[ií]a|che|mano|wey|g[uü]ey|loco|hermano|po|llevo|llevamos|tuve|tuvimos|hemos\s+tenido))*"
    r"[\W]*$",
    re.IGNORECASE)


# A saying recalled as an answer's echo: "mais thats what my paw always said", "es lo que decía mi abuela".
_FAMILY_SAYING = re.compile(
    r"^\W*(?:(?:mais|well|ha|haha|lol|aye|yeah|yep|oh|s[ií]|pues|jaja\w*)\W+)*"
    r"(?:that'?s|thats|that\s+is|eso\s+es|es)\s+(?:just\s+|exactly\s+|justo\s+)?(?:what|lo\s+(?:que|q))\s+"
    r"(?:(?:(?:my|mi)\s+\w+|\w+)\s+(?:always\s+|siempre\s+|used\s+to\s+)?(?:said|says|say|dec[ií]a|dice|dijo)|"
    r"(?:siempre\s+)?(?:dec[ií]a|dice|dijo)\s+(?:siempre\s+)?mi\s+\w+)\b"
    r"(?:\s+(?:too|tambi[eé]n|siempre|always))?[\W]*$",
    re.IGNORECASE)
# However many words they have, these ask for nothing.
_ONLY_CHAT = (_PROMISED_NEWS, _OFF_TO_BED, _ABOUT_YOU, _WORN_OUT, _DAY_EXCLAIMED, _FAMILY_SAYING)

# The user says outright that they ask for nothing: "I'm not asking for anything I just needed to tell someone",
# "nowt to ask really", "no questions, just wanted a yarn", "solo quería decirte eso". What they told is why.
_ASKS_NOTHING = re.compile(
    r"\b(?:i'?m\s+not\s+asking\s+(?:you\s+)?(?:for\s+)?(?:anything|nothing)|not\s+asking\s+for\s+anything|"
    r"(?:nothing|nowt|naught)\s+to\s+ask|no\s+questions?(?:\s+(?:really|today|tonight))?\W+(?:i\s+)?(?:just|only)|"
    r"(?:just|only)\s+(?:needed|wanted)\s+(?:to\s+(?:tell|talk\s+to)\s+(?:someone|somebody|anyone|you)|"
    r"to\s+(?:chat|vent|rant|moan|natter|blether)|a\s+(?:yarn|chat|natter|blether|chinwag|rant|moan|good\s+moan))|"
    r"no\s+te\s+(?:pido|estoy\s+pidiendo|voy\s+a\s+pedir)\s+nada|nada\s+(?:que|q)\s+pedir(?:te)?|"
    r"no\s+(?:es|era)\s+(?:pa|para)\s+(?:que|q)\s+(?:hag(?:as|ai|ái|ás)|busques)\s+nada|"
    r"no\s+(?:hace\s+falta|necesito)\s+(?:que|q)\s+hag(?:as|ás)\s+nada|"
    r"no\s+need\s+(?:for\s+you\s+)?to\s+do\s+anything|(?:i\s+)?don'?t\s+need\s+you\s+to\s+do\s+anything|"
    r"(?:s[oó]lo|nom[aá]s|na\s+m[aá]s)\s+quer[ií]a\s+(?:decirte\s+eso|cont[aá]rtelo|contarte\s+eso|charlar|"
    r"conversar|platicar|desahogarme|(?:que|q)\s+lo\s+supieras))\b",
    re.IGNORECASE)
# Thanks for something, said alone: "gracias x la paciencia hoy", "ta for today", "thanks for everything today".
_THANKS_FOR = re.compile(
    r"^\W*(?:(?:ok|okay|vale|bueno|pues|well|right|and|y|muchas|mil|many|so|anyway)\W+)*"
    r"(?:thanks|thank\s+you|thx|ty|ta|cheers|gracias|grax|mil\s+gracias|muchas\s+gracias)"
    r"(?:\s+(?:so\s+much|very\s+much|a\s+lot|a\s+million|again|de\s+nuevo|otra\s+vez))?"
    r"\s+(?:for|por|x|pa|para)\s+((?:[^\W\d_]+\s*){1,5})[\W]*$",
    re.IGNORECASE)
# What thanks are for asks nothing, unless a request hides in it ("gracias por avisar apúntalo").
_NOT_THANKED_FOR = frozenset("and y e pero but now ahora then luego please pls porfa can could puedes add put remind "
                             "send delete check tell pon mete manda borra dime".split())
# Kind words for the assistant: "weon eri lo mas bacan q hay", "tu si ere jevi eh", "you're a legend".
_COMPLIMENT = re.compile(
    r"^\W*(?:(?:t[uú]|vos|usted|you)\s+)?(?:s[ií]\s+|really\s+|truly\s+)?"
    r"(?:eres|eri|ere|sos|you'?re|you\s+are|ur|u\s+r|u\s+are)\s+"
    r"(?:(?:tan|muy|so|such|the|a|an|un|una|el|la|lo|m[aá]s|mas|really|truly|re|bien|absolute|proper)\s+)*"
    r"(?:best|star|legend|gem|genius|lifesaver|champ|hero|diamond|angel|amazing|brilliant|awesome|great|"
    r"fantastic|wonderful|incredible|ace|class|mint|sol|crack|genio|genia|m[aá]ximo|mejor|bac[aá]n|ch[eé]vere|jevi|"
    r"genial|incre[ií]ble|grande|amor|cielo|tesoro|[aá]ngel|m[aá]quina|fiera|tremend[oa]|charr[oa]|chistos[oa]|"
    r"graciosa?o?|funny|hilarious|a\s+laugh|trabajador[a]?|atent[oa]|amable|eficiente|r[aá]pid[oa]|list[oa]|"
    r"inteligente|helpful|quick|smart|clever|kind|sweet|apa[ñn]ad[oa]|salad[oa]|(?<=lo\s)m[aá]s\b'?)"
    # (…and what it beats: "eres más apañao q las papas arrugás".)
    r"(?:\s+(?:que|q|than)\s+[^,;.!?]{1,40})?"
    r"(?:\s+(?:(?:que|q)\s+hay|del\s+mundo|ever|eh|mate|pal|bro|t[ií]o|t[ií]a|vos|usted))*[\W]*$",
    re.IGNORECASE)


# A rescue thanked for: "me salvaste la vida con lo del cumple de Dani", "you saved my bacon with that".
_RESCUED = re.compile(r"^\W*(?:(?:hoy|ayer|esta\s+semana|today|this\s+week)\s+)?"
                      r"(?:me\s+(?:salvaste|has\s+salvado|salvó)|you\s+(?:saved|'ve\s+saved))\s+"
                      r"(?:la\s+vida|el\s+d[ií]a|la\s+papeleta|my\s+(?:life|bacon|skin|day)|me)"
                      r"(?:\s+(?:con|with)\s+[^,;.!?]{1,50})?[\W]*$", re.IGNORECASE)
# Glad of the talk: "puchica q bonito platicar con vos", "nice chatting to you", "da gusto hablar contigo".
_NICE_TALKING = re.compile(
    r"^\W*(?:(?:\w+)\W+){0,2}(?:(?:qu[eé]|q|how|so|it'?s|it\s+is|da|que)\s+)?(?:bonito|lindo|bueno|rico|ch[eé]vere|"
    r"agradable|gusto|nice|good|great|lovely)\s+(?:(?:es|da|me\s+da)\s+)?(?:platicar|hablar|charlar|conversar|chatting|talking|"
    r"to\s+(?:chat|talk))\s+(?:con\s+(?:vos|usted|ti)|contigo|to\s+you|with\s+you)\b[^?]{0,160}$",
    re.IGNORECASE)
# The same exclaimed: "q chido eres wey", "qué lindo sos", "how sweet are you".
_EXCLAIMED_COMPLIMENT = re.compile(
    r"^\W*(?:qu[eé]|q|how|so)\s+(?:chid[oa]|lind[oa]|bac[aá]n|buena\s+onda|genial|amable|grande|crack|m[aá]quina|"
    r"sweet|kind|"
    r"lovely|helpful|good)\s+(?:eres|sos|ere|are\s+you|you\s+are)\b[^,;.!?]{0,20}$", re.IGNORECASE)


def _thanks_for_nothing_else(piece: str) -> bool:
    found = _THANKS_FOR.match(piece)
    return found is not None and not any(word in _NOT_THANKED_FOR or _has_clitic(word)
                                         for word in words(found.group(1)))


_MATES = frozenset(("tio", "tia", "illo"))


def _trimmed(piece: str) -> tuple[str, ...]:
    """The piece, and the piece without the small talk it opens or closes with ("… mamita", "weon …")."""
    found = list(_WORD.finditer(piece))
    end = len(piece)
    for match in reversed(found[1:]):
        plain = _plain(match.group(0))
        # (Whom it is said to goes too: "no sé qué haría sin ti tío".)
        if (plain not in _PLAIN_SMALL_TALK or plain in _PLAIN_GLUE) and plain not in _MATES:
            break
        end = match.start()
    first = _WORD.match(piece.lstrip())
    # (Only a word said to the user's friend goes too: "asere gracias x lo de ayer".)
    addressed = piece.lstrip()[first.end():] if first and _plain(first.group(0)) in _PLAIN_SMALL_TALK else piece
    return piece, piece[:end], _without_openers(piece[:end]), addressed


def _only_chat_piece(piece: str) -> bool:
    return is_small_talk(piece) or bool(_WHAT_YOU_ARE.search(piece)) or any(
        (core is not piece and bool(words(core)) and is_small_talk(core))
        or any(pattern.match(core) for pattern in (*_ONLY_CHAT, _COMPLIMENT, _EXCLAIMED_COMPLIMENT, _RESCUED,
                                                _NICE_TALKING))
        or _thanks_for_nothing_else(core)
        for core in _trimmed(piece))


# Words before a request's verb ("but add milk", "now remind me", "y apúntame…").
_BEFORE_THE_VERB = frozenset(_plain(word) for word in "now ahora so then just please pls porfa also can could would "
                             "you u puedes podrías me oye vale ok".split())
# A request's verb at the head of a piece: what a chat message with a request in it opens a piece with.
_REQUEST_VERBS = frozenset(_plain(word) for word in """add put send book set move cancel check find search email text
ring delete save note log write make show read open look remind tell apunta anota añade agrega pon manda recuerda
busca mira revisa borra guarda cambia mueve cancela dime dame""".split())


_TO_ME = re.compile(r"\w{2,}[áéíóú]\w*(?:me|nos)")  # "apúntame", "recuérdame", "avísanos"


def _asks_with_a_verb(text: str) -> bool:
    """Whether a piece of the message opens on a request's verb ("…, now remind me at 5", "…, apúntame el lunes")."""
    for piece in _pieces(text):
        found = words(piece)
        while found and _plain(found[0]) in _BEFORE_THE_VERB:
            found = found[1:]
        if found and (_plain(found[0]) in _REQUEST_VERBS or _has_clitic(found[0]) or _TO_ME.fullmatch(found[0])):
            return True
    return False


def only_chats(text: str) -> bool:
    """Whether the message only promises news for later, says it is off to bed (and why), asks the assistant
    about itself ("you ever been hot?"), says how worn out the user is, exclaims at the day, thanks the assistant
    for something or praises it, or says it asks for nothing (and whatever it asks is small talk): small talk."""
    if any(pattern.match(text) for pattern in _ONLY_CHAT):
        return True
    # ("Nice talking to you, now remind me at 5" and "nothing to ask, but add milk" still ask.)
    if _NICE_TALKING.match(text) and not _asks_with_a_verb(text):
        return True
    if _ASKS_NOTHING.search(text) and not _asks_with_a_verb(text):
        # ("nowt to ask really, … how's thee?": its questions ask after the assistant, or are for the model alone.)
        return all(_only_chat_piece(question.strip(" ¿?")) or needs_only_the_model(question)
                   for question in _QUESTION.findall(text))
    pieces = [piece.strip(" ,.;:-") for piece in _PUNCTUATION.split(text.strip())]
    pieces = [piece for piece in pieces if words(piece)]
    return bool(pieces) and all(_only_chat_piece(piece) for piece in pieces)


def needs_only_the_model(text: str) -> bool:
    """Whether the message asks what a word means, how it is said, spelt or translated, what a thing is, for
    a text rewritten, corrected or ideas to write with, a joke, or a unit converted."""
    text = _without_openers(text)
    return bool(_MODEL_ALONE.match(text) or (_CONVERSION.match(text) and not _MONEY.search(text))
                or _OPINION_ASKED.search(text) or _asked_after_a_preface(text))


_PREFACE_BREAK = re.compile(r"[,:;.]\s+")


def _asked_after_a_preface(text: str) -> bool:
    """The first question, said after a preface ("oye te voy a hacer una pregunta boba, tú sabes lo q es un
    torcedor?", "una consulta nomás: xq le dicen medialuna…?"), is one for the model alone."""
    first, mark, _ = text.partition("?")
    if not mark:
        return False
    pieces = _PREFACE_BREAK.split(first[:MAX_ASKED_CHARS])
    return any(_MODEL_ALONE.match(_without_openers(f"{piece}?")) for piece in pieces[1:])


# Only an opinion wanted, said anywhere: "¿X o Y? nomás tu opinión", "…, just your opinion".
# Told not to look anything up ("no me busques nada en internet", "no need to look anything up"): what it names
# is no skill to use.
_NO_SEARCH = re.compile(r"\b(?:no|sin|don'?t|without|no\s+need\s+to)\s+(?:me\s+)?(?:busques|buscar|buscarme|"
                        r"look(?:ing)?|search(?:ing)?|googl\w*)\s+(?:nada|anything|stuff|it|things?)(?:\s+up)?"
                        r"(?:\s+(?:en|on|in)\s+(?:internet|google|la\s+web|the\s+(?:web|internet))(?:\s+ni\s+nada)?)?\b",
                        re.IGNORECASE)


def without_search_refused(text: str) -> str:
    """The message without its "don't look anything up" ("…, no me busques nada en internet, decime…")."""
    return _NO_SEARCH.sub(" ", text)


_OPINION_ASKED = re.compile(r"\b(?:nom[aá]s|s[oó]lo|solo|just|only) (?:tu|your) "
                            r"(?:opini[oó]n|opinion|take|gut feeling)\b"
                            # What the assistant would do in the user's place, asked last: "…, vos qué harías?".
                            r"|\b(?:(?:t[uú]|vos|usted)\s+)?(?:qu[eé]|q)\s+(?:(?:t[uú]|vos)\s+)?har[ií]as?(?:\s+t[uú])?\s*\?\W*$"
                            r"|\bwhat would you do(?: in my (?:shoes|place))?\s*\?\W*$"
                            # Told not to look anything up: "no me busques nada, decime lo q vos creas", "no
                            # looking stuff up, just your gut".
                            r"|" + _NO_SEARCH.pattern +
                            r"|\bjust\s+(?:your|ur)\s+gut\b|\bjust\s+tell\s+me\s+what\s+you\s+think\b"
                            # Its view asked last or in passing: "…, tu q crees?", "q opinai vo?", "be honest, X or Y?".
                            r"|\b(?:t[uú]|vos|usted)\s+(?:qu[eé]|q)\s+(?:crees|cre[eé]s|opinas|opin[aá]s|opin[aá]i|piensas|"
                            r"pens[aá]s)\b|\b(?:qu[eé]|q)\s+opin[aá]i(?:\s+vo)?\b"
                            r"|\bbe\s+honest\b[^?]{0,60}\bor\b[^?]{1,40}\?"
                            r"|\bwhat(?:'?s|\s+is)\s+(?:your|ur)\s+(?:take|view|opinion|verdict)\b"
                            r"|\b(?:dime|decime|d[ií]game)\s+(?:lo\s+)?(?:que|q)\s+(?:t[uú]\s+|vos\s+)?"
                            r"(?:piensas|pens[aá]s|crees|cre[eé]s|creas|opinas|opin[aá]s)\b",
                            re.IGNORECASE)


_PLAIN_JOINS = frozenset(("y", "and", "e"))


def _without_openers(text: str) -> str:
    """The text after the small talk it opens with ("hiya, how do u say…", "bro qué significa…", "oye cuánto son…")."""
    found = list(_WORD.finditer(text))
    start = 0
    for position, match in enumerate(found[:4]):
        plain = _plain(match.group(0))
        # ("ta bien. oye y q hora es en madrid?": "and" after the small talk opens the question too.)
        joins = position > 0 and plain in _PLAIN_JOINS
        if (plain not in _PLAIN_SMALL_TALK or plain in _PLAIN_GLUE) and not joins:
            break
        start = match.end()
        if joins:
            break
    return text[start:] if start < len(text) and _WORD.search(text, start) else text


def first_leans_back(clause: str, answer: str, max_words: int) -> bool:
    """Whether the first request of several follows up on the last turn ("y el domingo?", "cambia lo de
    la tarta", "how much was the deposit?" after a list that showed it). One opened by thanks or an
    acknowledgement ("thanks for that", "vale eso ya está") closes the last turn instead."""
    found = words(clause)
    # (A word small talk only builds phrases with, "de" of "de acuerdo", opens no thanks: "de quién es?".)
    first = _plain(found[0]) if found else ""
    if not found or is_small_talk(clause) or (first in _PLAIN_SMALL_TALK and first not in _PLAIN_GLUE):
        return False
    return is_elliptical(clause) or names_shown(clause, answer) or (refers_back(clause) and len(found) <= max_words)


# Counting the days to or between dates the message gives ("how many days till 4 October?", "cuántos días
# faltan para Navidad?"): arithmetic on the calendar of the world, which the clock (core) answers. Without a
# date of its own ("how many days till my exam?") the date is somewhere else and the request is routed as usual.
_COUNTS_DAYS = re.compile(r"\b(?:how many (?:days|weeks|months)|cu[aá]nt[oa]s (?:d[ií]as|semanas|meses))\b",
                          re.IGNORECASE)
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
          r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|enero|febrero|marzo|abril|mayo|junio|julio|agosto|se(?:p)?tiembre|"
          r"octubre|noviembre|diciembre)")
_GIVEN_DATE = re.compile(
    rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:de\s+|of\s+)?{_MONTH}|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}/\d{{1,2}}|"
    r"christmas|xmas|navidad|nochevieja|nochebuena|new year'?s?|a[ñn]o nuevo|easter|semana santa|halloween|"
    # The feasts everyone of a country keeps: "cuántos días faltan pa fiestas patrias?".
    r"fiestas patrias|independence day|(?:the )?(?:4th|fourth) of july|thanksgiving|d[ií]a de (?:muertos|reyes)|"
    r"reyes|carnavales?|san juan|st\.? patrick'?s(?: day)?|bonfire night|hogmanay|black friday)\b",
    re.IGNORECASE)


def counts_days_to_given_dates(text: str) -> bool:
    """Whether the message counts days, weeks or months to or between dates it gives itself."""
    return bool(_COUNTS_DAYS.search(text) and _GIVEN_DATE.search(text))

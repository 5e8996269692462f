"""Did the user ask for an action, and of what kind? Decided from the user's own words.

The user's message is not adversarial, so rules over it are a sound base: an imperative
or a request ("can you…", "¿puedes…?", "quiero que…") with an action verb, in Spanish or
English. Negated requests ("don't delete it") ask for nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import islice

from bot.core.honesty.actions import ActionKind
from bot.core.texting import closing_question, spelled_out

_I = re.IGNORECASE
_AGAIN = r"(?:otra\s+vez|de\s+nuevo|nuevamente)"
_RETRY = (r"(?:(?:re)?try(?:\s+again)?\s+(?:to|and)|vuelve\s+a(?:\s+(?:intentar|probar)(?:lo)?)?(?:\s+lo\s+de)?|"
          rf"(?:re)?intenta(?:lo)?(?:\s+{_AGAIN})?(?:\s+lo\s+de)?|prueba(?:\s+{_AGAIN})?\s+a)")
_LEAD = (
    # ("Lista: pan, leche → añade huevos": an arrow before the verb too.)
    r"(?:^|[.!?;:,¡¿\n→>]\s*|\b(?:please|pls|plz|plis|kindly|(?:can|cn|could|cld|would|will)\s+(?:you|u|ya|ye)|"
    r"reckon\s+(?:you\s+)?(?:could|can)|(?:no\s+)?(?:te|le|os)\s+importar[íi]a(?:n)?|"
    r"i\s+want\s+you\s+to|i\s+need\s+you\s+to|i'?d\s+like\s+you\s+to|go\s+ahead\s+and|just|and|also|then|now|"
    r"hey|yo|ok|okay|be\s+so\s+kind\s+as\s+to|"
    r"por\s+favor|porfa|porfis|xfa|puedes|pod[ée]s|podr[íi]as|me\s+puedes|quiero\s+que|necesito\s+que|y|tambi[ée]n|"
    r"luego|ahora|oye|vale|pues|venga|haz(?:me)?\s+el\s+favor\s+de|h[áa]game\s+el\s+favor\s+de|"
    # Whom the request is said to, fondly: "oye compa apúntame…", "mate, add…", "quillo apúntame…".
    r"compa|compadre|cuate|colega|t[íi]o|t[íi]a|jefe|jefa|mano|wey|g[üu]ey|pibe|che|chaval|pana|parce|maje|"
    r"quillo|illo|pisha|chacho|mijo|mija|mate|bro|pal|buddy|dude|hun|pet|lad|lass|macho|tronco|nano|neno|chiquillo|"
    r"chavala|bo|boludo|chamo|carnal|ñero|mae|cari|mi\s+(?:niño|niña|amor|vida|rey|reina|arma|alma)|"
    r"(?:ser[íi]as|ser[íi]a\s+usted)\s+tan\s+amable\s+de|me\s+har[íi]as\s+el\s+favor\s+de)\s+"
    # Asked again after a failure: "try again to add…", "vuelve a intentar lo de añadir…", "prueba otra vez a
    # mandarle…". ("I'll try to add it myself" is the user's own plan: only a clause's start or a plea leads.)
    rf"|(?:^|[.!?;:,¡¿\n→>]\s*|\b(?:please|pls|(?:can|could|would)\s+(?:you|u))\s+){_RETRY}\s+"
    # A place put first: "en la nota presupuesto cambia el alquiler", "on the shopping list add eggs".
    # (After a question, "for my training log" is what it is for.)
    r"|(?:^|[.!;:¡¿\n]\s*)(?:en|in|on|into|to|a|para|for)\s+(?:la|el|las|los|mi|mis|tu|tus|my|the|your)\s+"
    r"(?:[\w.'-]+\s+){1,3}?)"
)
# A note called by a name shaped like one: "plan-b", "lista-xc06", "trip.md".
_NAMED = r"(?:[\w]+-[\w-]+|[^\W\d_][\w-]*\d[\w-]*|[\w-]+\.md)"
_VERBS: dict[ActionKind, str] = {
    ActionKind.REMOVE: (
        r"delete|remove|erase|drop|clear|wipe|trash|empty|forget|cancel|call\s+off|unsubscribe|get\s+rid\s+of|"
        r"(?:turn|switch|shut)\s+off|disable|deactivate|desactiva(?:r|lo|la)?|apaga(?:r|lo|la)?|"
        r"scrap|bin|ditch|t[íi]ra(?:me|la|lo)?|c[áa]rga(?:te)?(?:la|lo)|"
        r"borra|b[óo]rra(?:me|la|lo|las|los)|vac[íi]a(?:r|la|lo|me)?|elimina(?:r|la|lo|las|los)?|quita(?:r|me|la|lo)?|olvida(?:r|te)?|"
        r"cancela(?:r|la|lo)?|anula(?:r|la|lo)?|b[óo]rrame|borrar|"
        # Taking a thing off a list: "take 'call mum' off my list", "cross the hotel off".
        # ("Take the day off" is a rest, not a list.)
        r"(?:take|cross|strike|knock)\s+(?!(?:the\s+|a\s+|an\s+)?(?:day|days|week|weekend|time|work|morning|afternoon|"
        r"evening|night|edge)\s+off\b)(?:[^.!?\n]{1,60}?\s+)?off\b|"
        # Said to "usted": "elimine la nota", "bórrela", "quite…", "cancele…".
        # ("Quite" alone is English: only with a clitic or before an article is it "quitar".)
        r"elimine(?:la|lo|las|los)?|b[óo]rre(?:la|lo|las|los)?|quite(?:la|lo|las|los)|"
        r"quite(?=\s+(?:el|la|los|las|lo|eso|esto|de)\b)|cancele(?:la|lo)?|anule(?:la|lo)?|"
        # Asked in the present: "¿me borras la nota vieja?".
        r"me\s+(?:borras|eliminas|quitas|cancelas|anulas|vacias)|"
        # The infinitive with its pronoun, after a lead: "vuelve a intentar borrarla", "prueba a quitarlo".
        r"(?:borrar|eliminar|quitar|cancelar|anular|vaciar|olvidar)(?:lo|la|los|las|me|le|les)"
    ),
    ActionKind.SEND: (
        # ("Send me the list" may mean here in the chat; "email me the list" goes out.)
        r"(?:send|message|forward)(?!\s+(?:me|it\s+to\s+me)\b)|email|e-mail|mail|text|reply|respond\s+to|answer\s+\w+|"
        # Whom to tell may take a few words: "tell my brother I'm late", "let the whole team know".
        # (A title's dot is part of the name: "let Dr. Hughes' office know".)
        r"tell\s+(?!me\b|us\b)(?:[\w.'-]+\s+){1,3}?(?:that|i\b|i'|we\b|we'|it'?s|about)|"
        r"let\s+(?!me\b|us\b)(?:[\w.'-]+\s+){1,3}?know|"
        # Asking or reminding someone else is a message to them: "ask her to pick it up", "remind Tom about the
        # deposit", "recuérdale a mi hermano que…", "pregúntale a Ana si…", "pídele a Luis que…".
        r"ask\s+(?!me\b|us\b|you\b|yourself\b|around\b|for\b|about\b|if\b|whether\b)(?:[\w.'-]+\s+){1,3}?"
        r"(?:to|if|whether|about|for|when|what)\b|"
        r"remind\s+(?!me\b|us\b|myself\b)(?:[\w.'-]+\s+){1,3}?(?:that|to|about|of)\b|"
        r"recu[ée]rda(?:le|les)|preg[úu]nta(?:le|les)|p[íi]de(?:le|les)\s+(?:a\s+\w+\s+)?que|"
        # A phone call to someone: "call the dentist and…", "ring my landlord", "llama al fontanero".
        r"(?:call|ring|phone)\s+(?:the|my|our|her|his|their)\s+(?!(?:day|shots?|quits)\b)[\w'-]+|"
        r"ll[áa]ma(?:le|les)?\s+(?:a|al)\s+\w+|"
        r"(?:inform|notify|warn|brief)\s+(?!me\b|us\b)[\w'-]+|loop\s+(?!me\b|us\b)(?:[\w'-]+\s+){1,3}?in\b|"
        # "Ping Sarah that…", "loop in finance", "cc Marta on it", "dm the landlord".
        r"(?:ping|dm|slack|whatsapp|cc)\s+(?!me\b|us\b|it\b|that\b|this\b)[\w'-]+|loop\s+in\s+(?!me\b|us\b)[\w'-]+|"
        r"give\s+(?!me\b|us\b)(?:[\w'-]+\s+){1,3}?(?:a\s+)?heads[- ]up|"
        r"inf[óo]rma(?:le|les)?|inform[áa](?:le|les)|notif[íi]ca(?:le|les)?|comun[íi]ca(?:le|les)|"
        r"(?:informa|notifica|comunica)\s+a|"
        # Sharing with someone, or letting them know: "share the list with Pablo", "avísale a mi jefe".
        r"share|comparte|comp[áa]rte(?:la|lo|las|los|me)|compartir|av[íi]sa(?:le|les)|avisa\s+a|"
        # Paying is sending money out: "pay the water bill", "transfer 50 to Ana", "págale a Luis".
        r"pay(?!\s+attention)|"
        r"(?:transfer|wire)\s+(?:[\d€$£]|money|funds|the\s+(?:money|rent|payment|amount|deposit))|"
        r"settle\s+(?:the|my|our|this|that)\s+(?:[\w-]+\s+){0,2}?(?:bill|invoice|debt|balance|account|rent)|"
        r"paga(?:r|le|les)?|p[áa]ga(?:me|le|les|la|lo)|transfiere(?:le)?|"
        r"haz(?:me|le|les)?\s+(?:el|la|un|una)\s+(?:pago|transferencia|bizum|ingreso)|"
        r"shoot\s+(?:\w+\s+)?(?:an?\s+)?(?:email|e-mail|message|text|line)|"
        r"drop\s+\w+\s+(?:an?\s+)?(?:email|e-mail|message|line|note)|"
        r"env[íi]a(?:r|le|les)?|manda(?:r|le|les)?|m[áa]ndale|env[íi]ale|responde(?:r|le)?|contesta(?:r|le)?|"
        r"reenv[íi]a(?:r|le)?|escr[íi]bele|dile\s+a|dile\s+que|"
        r"env[íi]e(?:le|les)?|m[áa]nde(?:le|les)|responda(?:le)?|conteste(?:le)?|reenv[íi]e(?:le)?|"
        r"(?:mandar|enviar|reenviar|contestar|responder|escribir)(?:le|les|lo|la|selo|sela)"
    ),
    ActionKind.REMIND: (
        # ("Set us a reminder": "us" is "me" in the north of England.)
        r"remind|(?:set|put|give|gie)\s+(?:(?:me|us)\s+)?(?:(?:a|an|the|my|\d+|two|three|four|some|a\s+couple\s+of|these|those)\s+)?(?:new\s+)?"
        r"(?:reminders?|alarms?|timers?)|don'?t\s+let\s+me\s+forget|"
        r"make\s+sure\s+(?:i|we)\s+(?:don'?t|do\s+not|never)\s+forget|"
        r"(?:ping|nudge|alert|buzz|wake)\s+me|que\s+no\s+se\s+me\s+olvide|hazme\s+acordar|"
        r"recu[ée]rdame|recordarme|av[íi]same|pon(?:me)?\s+(?:un|una)\s+(?:recordatorio|alarma|aviso)|"
        r"p[óo]nga(?:me|le)?\s+(?:un|una)\s+(?:recordatorio|alarma|aviso)|"
        # Said to "usted" or "vosotros": "recuérdeme", "avíseme", "recordadme".
        r"recu[ée]rde(?:me|nos)|av[íi]se(?:me|nos)|recordadme|avisadme|me\s+avisas"
    ),
    ActionKind.STORE: (
        r"add|put|stick|pop|toss|throw|slot|pencil\s+in|create|"
        r"make\s+(?:(?:me|us)\s+)?(?:a|an|the|two|three|\d+|some|a\s+couple\s+of)\s+(?:new\s+)?(?:notes?|lists?|events?|tasks?|entry|entries)|write(?!\s+(?:me|us)\s+(?:a|an|some)\s+(?!(?:note|file|entry|task|reminder)\b)\w)|jot|note\s+down|note|save|"
        r"store|keep\s+(?:in\s+)?mind|keep\s+track|remember|record|log|register|schedule|book|move|rename|change|swap|switch(?!\s+(?:it\s+|them\s+)?(?:off|on)\b)|"
        # Moving when: "push it back an hour", "bring the call forward", "adelanta media hora el aviso".
        r"push\s+(?:[\w'-]+\s+){0,4}?back|bring\s+(?:[\w'-]+\s+){0,4}?forward|reschedule|postpone|delay|"
        r"push\s+(?:[\w'-]+\s+){0,4}?to\s+(?:next|the\s+\w+|tomorrow|(?:mon|tues|wednes|thurs|fri|satur|sun)day)|"
        r"adelanta(?:r|me|lo|la)?|atrasa(?:r|me|lo|la)?|retrasa(?:r|me|lo|la)?|aplaza(?:r|me|lo|la)?|"
        r"pospon(?:er|me|lo|la)?|posp[óo]n(?:lo|la|me)|"
        r"update|replace|overwrite|edit|mark|complete|archive|append|insert|set\s+up|memori[sz]e|"
        # Changing an amount to a figure: "raise the savings line to 300", "bump rent by 50", "súbele a 80 lo del gas".
        r"(?:bump|raise|lower|increase|decrease|reduce|cut)\s+(?:[^.!?\n]{1,40}?\s+)?(?:to|by)\s+(?=[\d€$£])|"
        r"(?:sube|s[úu]be(?:le|lo|la)|baja|b[áa]ja(?:le|lo|la)|aumenta|aum[ée]nta(?:le|lo|la)|reduce|red[úu]ce(?:le|lo|la)|"
        r"rebaja)\s+(?:[^.!?\n]{1,40}?\s+)?(?:a|en|hasta)\s+(?=[\d€$£])|"
        # Correcting a note changes it: "fix my court-dates note", "corrige la lista", "incorpora al expediente".
        r"fix|correct|amend|incorporate|corrige|corr[íi]ge(?:lo|la)|corregir|arregla(?:r)?|arr[ée]gla(?:lo|la)|"
        r"incorpora(?:r)?|incorp[óo]ra(?:lo|la)|"
        # Put into a note: "pásame eso a una nota repaso-3", "pasa la receta a mi lista".
        r"p[áa]sa(?:me|nos)?\s+(?:[\w'-]+\s+){0,5}?(?:a|en|al)\s+(?:(?:una|un|la|el|mi|mis|tu|nueva)\s+)+"
        r"(?:nota|lista|archivo|fichero|documento)s?\b|"
        # Moving to another day: "pasá lo de fumigar del lunes al miércoles", "pásalo al viernes".
        r"pasa(?:lo|la|los|las)|pasa\s+(?:[\w'-]+\s+){1,8}?(?:al?|para\s+el)\s+(?:lunes|martes|miercoles|jueves|"
        r"viernes|sabado|domingo|dia\s+\d|\d)|"
        # Copying a note makes a new one: "copy it into a new note", "cópiala en recetas".
        # ("Copy that", "duplicate charge", "copia de seguridad": no copy asked for.)
        r"copy(?!\s+that\b)|duplicate(?=\s+(?:it|this|that|the|my|your)\b)|copia(?:r)?(?!\s+de\s+seguridad)|"
        r"c[óo]pia(?:me|la|lo)|duplica(?:r)?(?=\s+(?:la|el|esta|este|esa|ese|mi|tu)\b)|"
        r"a[ñn]ade|a[ñn]adir|a[ñn][áa]de(?:me|lo|la|le|les|selo|sela)|"
        # "Haz dos notas", "hazme una nota": making the thing, said by its noun. ("Hazme una lista de
        # ideas" may be asked for in the chat.)
        # (Said with "vos": "hacé una nota precios con…".)
        r"(?:haz|hac[ée])(?:me)?\s+(?:una?|la|el|las|los|dos|tres|\d+)\s+(?:nuevas?\s+)?(?:notas?|entradas?|tareas?)\b|"
        r"agrega(?:r|me)?|pon(?:me|lo|la|le|er)?|mete(?:r|me)?|apunta(?:r|me)?|"
        r"ap[úu]nta(?:me|lo|la)|anota(?:r)?|an[óo]ta(?:me|lo|la)|escribe|escr[íi]be(?:lo|la)|escr[íi]beme(?!\s+(?:un|una|unos|unas)\s+(?!(?:nota|entrada|tarea|recordatorio)\b)\w)|crea(?:r)?|"
        r"cr[ée]a(?:me|la|lo)|guarda(?:r)?|gu[áa]rda(?:te|me|lo|la|melo|mela)|registra(?:r)?|recuerda(?:\s+que)?|"
        r"programa(?:r)?|agenda(?:r)?|reserva(?:r)?|mueve|mover|cambia(?:r)?|c[áa]mbia(?:me|le|lo|la)|"
        # Renewing, confirming, ordering, buying: changes made on the user's behalf, as a booking is.
        r"renew|confirm(?!\s+(?:if|whether|that|what|which|how)\b)|order(?!\s+(?:of|by|in|to)\b)|buy|purchase|"
        r"renueva(?:r)?|renu[ée]va(?:me|lo|la)|confirma(?:r)?|conf[íi]rma(?:me|lo|la)|pide(?:me)?|p[íi]de(?:me|lo|la|le|les)|"
        r"encarga(?:r)?|enc[áa]rga(?:me|lo|la)|compra(?:r|me)?|c[óo]mpra(?:me|lo|la|le)|"
        r"renombra(?:r)?|ren[óo]mbra(?:le|lo|la)|actualiza(?:r)?|actual[íi]za(?:me|le|lo|la)|"
        r"sustituye|sustituir|reemplaza(?:r)?|sobre?e?scrib(?:e|a|ir|ela|elo|ala|alo)|edita(?:r)?|marca(?:r)?|"
        r"completa(?:r)?|archiva(?:r)?|"
        r"memoriza(?:r)?|acu[ée]rdate|deja(?:r)?\s+constancia|ten\s+en\s+cuenta|gr[áa]ba(?:te|lo|la)?|ap[úu]nta(?:te)?|qu[ée]date\s+con|"
        # Crossing a thing off a list marks it done: "táchame lo del hotel", "tick off 'pay rent'".
        r"tacha(?:r)?|t[áa]cha(?:me|lo|la|los|las)|tick\s+(?:[^.!?\n]{1,60}?\s+)?off\b|"
        # Closing a ticket or an item, balancing the till: "close out the card reader ticket", "cuadra la caja".
        r"close\s+(?:out|off)|close\s+(?:the|my|that|this)\s+(?:[\w-]+\s+){0,2}?(?:ticket|issue|item|task|case|"
        r"order|account|tab)\b|cierra\s+(?:el|la|ese|esa)\s+(?:[\w-]+\s+){0,2}?(?:ticket|incidencia|tarea|caso|pedido)\b|"
        r"cuadra(?:r|me)?|cu[áa]drame|reconcile|"
        # Filing a thing away: "file the receipt under Q3", "archívalo en gastos".
        r"file\s+(?:it|this|that|these|those|them|the|my|our)\b(?!\s+(?:a\s+)?(?:complaint|claim|report|lawsuit|suit)\b)|"
        # ("Check whether the heater is off" asks to look.)
        r"check\s+(?:(?:(?!\b(?:if|whether|is|are|was|were|that|to|it's|it’s)\b)[^.!?\n]){1,60}?\s+)?off\b|"
        # Leaving a note with only some of it is rewriting it: "deja la lista solo con arroz",
        # "leave my list with just bread". ("Déjalo solo" alone, leave it be, names no note.)
        rf"d[ée]ja(?:me|la|lo)?\s+(?:(?:la|el|mi|tu|las|los)\s+)?(?:nota|lista|notas|listas|fichero|archivo|{_NAMED})\b"
        r"[^.!?\n]{0,60}?\b(?:solo|s[óo]lo|solamente|[úu]nicamente)\b|"
        r"d[ée]ja\s+(?:solo|s[óo]lo|solamente|[úu]nicamente)\s+[^.!?\n]{1,60}?\s+en\s+(?:la|el|mi|tu)\s+|"
        rf"leave\s+(?:(?:my|the|your)\s+)?(?:(?:[\w-]+\s+){{0,2}}?(?:note|list|file)|{_NAMED})\b[^.!?\n]{{0,40}}?\b(?:just|only)\b|"
        r"leave\s+(?:just|only)\s+[^.!?\n]{1,60}?\s+(?:on|in)\s+(?:my|the|your)\s+|"
        # Said to "usted": "añada", "apunte", "guárdelo", "cree una nota", "cámbiela".
        # ("¿Cree que lloverá?" asks an opinion: "cree" creates only a thing it names.)
        r"a[ñn]ada(?:lo|la)?|agregue(?:lo|la)?|apunte(?:lo|la)?|an[óo]te(?:lo|la)?|gu[áa]rde(?:lo|la)?|"
        r"cree(?=\s+(?:una?|la|el|otra|otro|mi|su)\b)|"
        r"ponga(?:lo|la)?|escriba(?:lo|la)?|c[áa]mbie(?:lo|la)?|actualice(?:lo|la)?|registre(?:lo|la)?|"
        r"t[áa]chelo|t[áa]chela|tache|"
        # Asked in the present: "¿me apuntas…?", "¿me dejas anotado…?".
        r"me\s+(?:apuntas|anotas|guardas|a[ñn]ades|agregas|pones|creas|cambias|actualizas|reservas|agendas|"
        r"programas|marcas|tachas|dejas\s+(?:anotad|apuntad|guardad|puest)[oa]s?)|"
        r"(?:a[ñn]adir|agregar|apuntar|anotar|guardar|poner|meter|crear|cambiar|actualizar|reservar|programar|"
        r"agendar|marcar)(?:lo|la|los|las|le|les|me|selo|sela)"
    ),
}
# Rioplatense voseo ("anotá", "guardalo", "borrá", "mandale", "acordate", "recordame"): the stress
# moves to the ending, so the tú forms above miss them. Typed without the accent they are also how
# many write the tú forms with a clitic ("guardalo" for "guárdalo").
_VOS_CLITICS = r"(?:me|te|lo|la|los|las|le|les|melo|mela|selo|sela|nos)?"
_VOSEO: dict[ActionKind, str] = {
    ActionKind.REMOVE: rf"(?:borr|elimin|quit|sac|cancel|anul|vaci|tir)[áa]{_VOS_CLITICS}|olvid[áa]te",
    ActionKind.SEND: rf"(?:mand|envi|contest|reenvi)[áa]{_VOS_CLITICS}|respond[ée](?:le|les)?|escribile",
    ActionKind.REMIND: r"record[áa](?:me|melo|mela)|avis[áa]me|hac[ée]me\s+acordar",
    ActionKind.STORE: (
        # ("¿Cree que lloverá?" is "creer", to believe.)
        rf"(?!cre[eé]s?\s+que\b)"
        rf"(?:apunt|anot|guard|agreg|registr|agend|program|reserv|actualiz|cambi|marc|complet|archiv|cre|grab|"
        rf"sum|met|pon|compr|encarg)[áaée]{_VOS_CLITICS}|acord[áa]te|ten[ée]\s+en\s+cuenta|"
        # "Pedime una grande de muzza", "pedile turno": ordering, said with its pronoun ("pedí" alone is the past).
        r"ped[íi](?:me|le|les|lo|la|melo|mela|selo|sela)"
    ),
}
# "Start a fresh note", "open a new list", "empieza una lista": making the thing, said by its noun.
# ("Open my note" reads it; "hazme una lista de ideas" may be asked for in the chat.)
_MAKE_A_THING = (
    r"(?:start|begin|set\s+up)\s+(?:me\s+)?(?:a|an|the|my)\s+(?:(?:new|fresh|blank|separate|little)\s+)?"
    r"(?:note|list|file|entry|journal|diary|log|checklist)|"
    r"open\s+(?:me\s+)?(?:a|an|the|my)\s+(?:new|fresh|blank|separate)\s+(?:note|list|file|entry|journal|diary|log)|"
    r"(?:empieza|empez[áa]|monta|mont[áa]|inicia|inici[áa])\s+(?:me\s+)?(?:una|un|la|el|mi)\s+(?:(?:nueva|nuevo)\s+)?"
    r"(?:nota|lista|fichero|archivo|entrada|diario|registro)|"
    r"abr[eí](?:me)?\s+(?:una|un)\s+(?:nota|lista|fichero|archivo|entrada)\s+nuev[oa]|"
    # Said by the noun alone, as a texted order: "new note plan-3 'phase 2'", "nota nueva compras-4".
    r"(?:new|nueva|nuevo)\s+(?:note|list|file|entry|nota|lista|fichero|archivo|entrada)|"
    r"(?:nota|lista|fichero|archivo|entrada)\s+nuev[oa]"
)
_EXTRA_VERBS = {**_VOSEO, ActionKind.STORE: f"{_VOSEO[ActionKind.STORE]}|{_MAKE_A_THING}"}
_PATTERNS = tuple(
    (kind, re.compile(rf"{_LEAD}(?!(?:don'?t|do\s+not|no|never|nunca)\s)({verbs}|{_EXTRA_VERBS[kind]})\b", _I))
    for kind, verbs in _VERBS.items()
)
_NEGATED_REQUEST = re.compile(r"\b(?:don'?t|do\s+not|never|no|nunca|ni)\s+$", _I)
# "remind" inside "remind me" anywhere, "recuérdame" anywhere: requests whatever comes before.
_ANYWHERE: tuple[tuple[ActionKind, re.Pattern[str]], ...] = (
    (ActionKind.REMIND, re.compile(
        r"\b(?:remind\s+me|recu[ée]rdame|av[íi]same\s+(?:el|la|a|cuando|ma[ñn]ana)|don'?t\s+let\s+me\s+forget|"
        r"que\s+no\s+se\s+me\s+olvide)\b"
        # A polite request: "le agradecería que me recordara…", "quería que me avisaras".
        r"|\bque\s+me\s+(?:recuerde|recuerdes|recordara|recordaras|recordase|recordases|avise|avises|avisara|"
        r"avisaras|avisase|avisases)\b", _I)),
    # Asking for a thing rather than an act: "I want a reminder at 7", "quiero un aviso a las 7".
    (ActionKind.REMIND, re.compile(
        r"\b(?:i\s+(?:want|need)|i'?d\s+like|can\s+i\s+(?:have|get)|could\s+i\s+(?:have|get)|give\s+me|"
        r"quiero|necesito|me\s+gustar[íi]a|ponme|dame)\s+(?:a|an|un|una)\s+(?:reminder|alarm|recordatorio|aviso|alarma)\b",
        _I)),
    (ActionKind.STORE, re.compile(
        r"\b(?:i\s+(?:want|need)|i'?d\s+like|i'?m\s+after|quiero|necesito|me\s+gustar[íi]a)\s+(?:a|an|un|una)\s+"
        r"(?:(?:new|nueva)\s+)?(?:note|task|entry|nota|tarea|entrada)\b"
        # "¿La nota de ideas podría llevar también…?", "could the list get eggs too?": the note as the one that
        # would take it.
        r"|\b(?:nota|lista|note|list)\b[^.?!\n]{0,40}?\b(?:podr[íi]a|puede|could|can)\s+(?:tambi[ée]n\s+|also\s+)?"
        r"(?:llevar|tener|incluir|get|have(?!\s+been)|include|take)\b"
        r"|\b(?:could|can|podr[íi]a|puede)\s+(?:the|my|your|la|mi|tu)\s+(?:[\w-]+\s+){0,2}?(?:list|note|lista|nota)\s+"
        r"(?:also\s+|tambi[ée]n\s+)?(?:get|have(?!\s+been)|include|take|llevar|tener|incluir)\b"
        # "milk on the shopping list please", "leche a la lista, porfa": a thing, a place, a please
        r"|\b(?:on|to|in|into|a|en)\s+(?:my|the|your|mi|la|tu|mis)\s+(?:[^\W\d_]+\s+){0,2}?(?:list|note|notes|lista|nota|notas)"
        r"\b[^.?!\n]{0,40}?\b(?:please|pls|porfa|por\s+favor)\b"
        # "no olvides que…", "keep it", "for the record", "que conste": something to keep
        r"|\b(?:i\s+need|necesito|quiero)\s+[^.?!\n]{1,40}?\s+(?:on|in|to|en)\s+(?:my|the|mi|la)\s+(?:[^\W\d_]+\s+){0,2}?"
        r"(?:list|note|notes|lista|nota|notas)\b"
        # "Que te acuerdes de que…", "que lo apuntes": the subjunctive of a wish is a request.
        r"|\bque\s+(?:te\s+acuerdes|(?:lo|la|los|las)\s+(?:apuntes|anotes|guardes|agregues|a[ñn]adas)|tengas\s+en\s+cuenta)\b"
        r"|\b(?:no\s+(?:te\s+)?olvides\s+(?:que|de)|no\s+se\s+te\s+olvide|"
        r"(?<!\bi\s)(?<!\bwe\s)(?<!\byou\s)(?<!\bthey\s)keep\s+(?:it|that|this)\b(?!\s+(?:up|going|short|"
        r"simple|quiet|down))|for\s+the\s+record|que\s+conste|tenlo\s+en\s+cuenta|t[ée]nlo\s+presente|"
        r"falta(?:n)?\s+[^.?!\n]{1,40}?\s+en\s+(?:la|mi)\s+(?:lista|nota))",
        _I)),
    # A reminder named with its when and no verb: "dentist reminder tomorrow 9am", "recordatorio mañana 9h
    # dentista". (A question about one, or thanks for one that rang, asks for none.)
    (ActionKind.REMIND, re.compile(
        r"^(?![^\n]*\b(?:what|which|when|where|why|how|do\s+i|did\s+i|have\s+i|is\s+there|are\s+there|any|"
        r"thanks?|useful|worked|was|were|got|went|rang|que|cual|cuando|donde|tengo|hay|tenia|gracias|sirvio|fue|"
        r"funciono|son[oó])\b)[^\n?]*\b(?:reminder|alarm|recordatorio|aviso|alarma)\b[^\n]*?"
        r"(?:\b\d{1,2}\s?(?:am|pm|h)\b|\b\d{1,2}:\d\d|\btomorrow\b|\btonight\b|\bma[ñn]ana\b|\besta\s+noche\b|"
        r"\bon\s+the\s+\d|\bel\s+(?:dia\s+)?\d{1,2}\b|\b\d{1,2}\s+(?:de\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|"
        r"nov|dec|ene|abr|ago|dic)|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(?:lunes|martes|miercoles|"
        r"jueves|viernes|sabado|domingo)\b)",
        _I)),
    # "Could reminder r-5120 go?", "recordatorio r-2024 fuera": asking for a thing to be gone.
    (ActionKind.REMOVE, re.compile(
        r"\b(?:could|can|should)\s+(?:the\s+|my\s+|that\s+)?(?:(?:reminder|note|alarm|entry)\s+)?"
        r"(?:[^\W\d_]+-[\w-]*\d[\w-]*|reminder|note|alarm|entry)\s+go\b(?!\s+(?:ahead|on|through|up|back|off|out|in|"
        r"into|to|with)\b)"
        r"|\b(?:recordatorio|nota|aviso|alarma|[^\W\d_]+-[\w-]*\d[\w-]*)\s+(?:[\w-]+\s+)?fuera\b(?!\s+de\b)"
        r"|(?:^|[.!?,;:¡¿\n]\s*)fuera\s+(?:el|la|los|las|ese|esa|mi|tu)\s+(?:recordatorio|nota|aviso|alarma)",
        _I)),
)
# A thing that failed, asked for again by its noun: "try the reminder to call mum again", "retry that
# email", "vuelve a intentar lo del correo a Luis", "reintenta el recordatorio".
_RETRY_THING = (r"(?:\b(?:(?<!\bi\s)(?<!'ll\s)(?<!\bwe\s)(?<!\bto\s)(?:re)?try(?:\s+again)?|give)\s+"
                r"(?:the|that|this|my|your)\s+(?:[\w'-]+\s+)?{en}"
                r"|\b(?:vuelve\s+a\s+(?:intentar|probar|hacer)|(?:re)?intenta(?:lo)?|prueba)\s+"
                rf"(?:{_AGAIN}\s+)?(?:lo\s+del?\s+|el\s+|la\s+)(?:[\w'-]+\s+)?{{es}})\b")
_ANYWHERE += tuple(
    (kind, re.compile(_RETRY_THING.format(en=en, es=es), _I))
    for kind, en, es in (
        (ActionKind.REMIND, r"(?:reminders?|alarms?)", r"(?:recordatorios?|avisos?|alarmas?)"),
        (ActionKind.SEND, r"(?:e-?mails?|mails?|messages?|texts?|whatsapps?|replies)",
         r"(?:correos?|e-?mails?|mails?|mensajes?|whatsapps?|respuestas?)"),
        (ActionKind.STORE, r"(?:notes?|entry|entries|booking|reservation)", r"(?:notas?|apuntes?|reservas?)"),
    )
)
# "Mind noting that…?", "would you mind popping it in?", "try adding it again": the verb comes as its -ing form.
_MIND = re.compile(r"\b(?:mind|(?<!\bi\s)(?<!'ll\s)(?<!\bwe\s)(?<!\bto\s)(?:re)?try)\s+([^\W\d_]{2,})ing\b", _I)


REQUEST_THRESHOLD = 0.95


def asked_actions(user_text: str, request_probability: Callable[[str], float] | None = None
                  ) -> frozenset[ActionKind]:
    """The kinds of action the user's message asks for (empty: it asks for none).

    When the rules find no request, `request_probability` (the classifier) may still say
    the message asks for one; its kind is then taken to be storing something, the commonest.
    """
    found = asked_by_rules(user_text)
    if not found and _CORRECTS.match(user_text):
        # "scratch that, I moved the car to level 5": what the turn before saved is to change.
        return frozenset({ActionKind.ANY})
    if found or not user_text.strip() or reported_actions(user_text):
        return found
    if continues_request(user_text) or confirms(user_text):
        return frozenset({ActionKind.ANY})
    if request_probability is not None and request_probability(user_text[:4000]) >= REQUEST_THRESHOLD:
        return frozenset({ActionKind.STORE})
    return found


# "y también huevos", "and the other one too", "same for the work note": a message that goes on
# with what the one before it asked, without a verb of its own. The kind is the earlier request's,
# which these words do not say.
_GOES_ON = re.compile(
    r"^\W*(?:and|also|plus|and\s+also|y|e|tambi[ée]n|adem[áa]s|y\s+tambi[ée]n|one\s+more|another|otr[oa]\s+m[áa]s|"
    r"same\s+(?:for|with)|lo\s+mismo\s+(?:para|con|en)|igual\s+(?:para|con)|"
    # "now receipts-2022", "now the other one", "last one: return the books", "y por último…" ("now you're
    # here" and "next week is busy" go on with nothing).
    r"(?:now|ahora)\s+(?:(?:the|el|la|los|las)\s+)?(?:other|next|second|third|otr[oa]s?|siguiente|segund[oa]|"
    r"[\w-]*\d[\w-]*|\w+-[\w-]+)|next\s+one|last\s+one|one\s+last|el\s+[úu]ltimo|la\s+[úu]ltima|"
    r"y\s+por\s+[úu]ltimo|"
    r"(?:(?:can|could)\s+(?:you|u)\s+)?(?:do|make)\s+the\s+same|haz(?:me)?\s+lo\s+mismo|lo\s+mismo)\b"
    r"|\b(?:too|as\s+well|tambi[ée]n|again|otra\s+vez|de\s+nuevo)\W*$",
    _I,
)
MAX_GOING_ON_CHARS = 80
# One more fact for the "remember that…" before, whatever the message asks next: "y también que mi hijo no
# toma lactosa", "oh and also that she's vegan". ("También que no sé…" says what the user does not know.)
_ALSO_THAT = re.compile(r"^\W*(?:(?:ah|oh|ay|uy|oye|vale|ok)\W+)?(?:y\s+|and\s+)?(?:tambi[ée]n|also)\s+"
                        r"(?:que|q|that)\s+(?!(?:no\s+)?(?:s[ée]|sabes?|know|knew)\b)[^\W\d_]", _I)
# Taking back what the last message said: "scratch that…", "correction:", "rectifico…", "me equivoqué, es…".
_CORRECTS = re.compile(r"^\W*(?:scratch\s+that|correction|update\s+that|change\s+that|rectifico|corrijo|"
                       r"me\s+equivoqu[ée]|olvida\s+(?:eso|lo\s+anterior)|cambia\s+eso)\b", _I)
# "Thank you too", "y gracias": manners, not more of a request.
_PLEASANTRY = re.compile(r"\b(?:thanks?|thank\s+you|cheers|you\s+too|me\s+too|same\s+here|yo\s+tambi[ée]n|"
                         r"bye|good\s*night|hello|hi|"
                         r"gracias|igualmente|t[úu]\s+tambi[ée]n|adi[óo]s|hasta\s+luego|buenas|hola)\b", _I)


# "make it 9 instead", "actually Friday instead of Thursday", "mejor a las 9", "que sea el lunes",
# "pásalo al martes": a short follow-up that changes when the request before is for, with no verb
# the rules know. Only a time or a day after it: "make it quick" and "mejor así" change nothing.
_WHEN = (r"(?:\d|noon|midnight|tomorrow|tonight|today|next\b|this\s+(?:morning|afternoon|evening|week)|"
         r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|half\s+past|quarter|"
         r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b|"
         r"ma[ñn]ana|hoy|pasado|mediod[íi]a|medianoche|lunes|martes|mi[ée]rcoles|jueves|viernes|s[áa]bado|domingo|"
         r"(?:la|las)\s+(?:\d|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce)|"
         r"(?:el|la)\s+(?:semana|d[íi]a|pr[óo]xim[oa]|siguiente|otr[oa])|al?\s+(?:d[íi]a|lunes|martes|mi[ée]rcoles|"
         r"jueves|viernes|s[áa]bado|domingo))")
_AMENDS = re.compile(
    r"^\W*(?:(?:actually|no|nah|wait|sorry|oops|oh|hmm|ok|okay|on\s+second\s+thought|mejor\s+dicho|perd[óo]n|"
    r"perdona|espera|oye|vale|bueno|uy|ah|mm+)\W+)*"
    rf"(?:make\s+(?:it|that)|let'?s\s+(?:say|make\s+it|go\s+with|do)|(?:push|bump|switch)\s+(?:it|that)\s+to|"
    rf"(?:at|on|for)|a(?=\s+las?\b)|mejor|que\s+sea|hazlo|d[ée]jalo|p[áa]salo|c[áa]mbialo|mu[ée]velo|ponlo)\W+"
    rf"(?:(?:at|on|for|to|a|al|para|en|el|la|las)\s+)?{_WHEN}"
    rf"|\b(?:instead\s+of|rather\s+than|en\s+(?:vez|lugar)\s+de)\s+(?:(?:at|on|the|a|el|la|las)\s+)?{_WHEN}"
    rf"|^\W*(?:\w+\W+){{0,2}}?{_WHEN}[^.!?\n]{{0,20}}?\binstead\W*$",
    _I,
)
# Someone saying what they did or will do ("I'll have tea at 5 instead of 4") changes no request.
# The reason given for a change ("mejor a las 7:15, que a las 8 ya he desayunado") is no plan of the user's.
_REASON = re.compile(r"(?:[,;:]\s*|\s+)(?:que|porque|pues|ya\s+que|because|since|as|'?cause)\b.*$", _I)
_OWN_PLAN = re.compile(r"\b(?:i|i'?ll|i'?d|i'?m|we|we'?ll|yo|voy|vamos|he|hemos|iré|llegaré)\b", _I)


def continues_request(user_text: str) -> bool:
    """A short follow-up that asks for more of the same ("and eggs too") or changes when it is for
    ("make it 9 instead"), with no verb of its own."""
    text = user_text.strip()
    if _ALSO_THAT.match(text) and not asked_by_rules(text):
        return True  # "ah y también que no toma lactosa, y qué postre hago?": one more fact to keep
    if len(text) > MAX_GOING_ON_CHARS or "?" in text or _PLEASANTRY.search(text) or asked_by_rules(text):
        return False
    return bool(_GOES_ON.search(text)) or (bool(_AMENDS.search(text)) and not _OWN_PLAN.search(_REASON.sub("", text)))


# "yes", "go ahead", "sí, adelante": the answer to "shall I…?". What it says yes to is in the
# turn before, so it is read as asking for some action, loosely: a claim of one needs a call,
# while anything else may be said ("yes" also answers questions that ask for nothing).
_ACK = r"(?:ok|okay|alright|all\s+right|sure|vale|claro|bueno|de\s+acuerdo|perfecto)"
_CONSENT = (r"(?:yes|yeah|yep|yup|please|go\s+ahead|do\s+it|please\s+do|go\s+for\s+it|s[íi]|adelante|hazlo|dale|"
            r"venga|por\s+favor)")
# An "ok" alone acknowledges what was done and asks for nothing: a yes needs a word of consent.
_YES = re.compile(
    rf"^\W*(?:{_ACK}\W+){{0,3}}{_CONSENT}(?:\W+(?:{_ACK}|{_CONSENT})){{0,3}}\W*$",
    _I,
)


def confirms(user_text: str) -> bool:
    """A bare yes ("ok, go ahead", "sí, adelante"): it agrees to what the turn before offered."""
    text = user_text.strip()
    return len(text) <= MAX_GOING_ON_CHARS and bool(_YES.match(text))


# The assistant's last answer ended by asking the user something ("Which note?", "¿A qué hora?").
_ASKS_BACK = re.compile(r"\?\W*$")


def answers_clarification(user_text: str, previous_request: str, previous_answer: str) -> frozenset[ActionKind]:
    """What the earlier request asked for, when this short message answers the question the
    assistant put about it ("delete my note" / "which one?" / "the shopping one").

    The request is still the one being served, so a claim of it needs a call in this turn. The
    caller decides that the earlier turn did not already do it.
    """
    text = user_text.strip()
    if (not text or len(text) > MAX_GOING_ON_CHARS or asked_by_rules(text) or _PLEASANTRY.search(text)
            or not _ASKS_BACK.search(previous_answer.strip())):
        return frozenset()
    # "No puedo enviarle mensajes. ¿Quieres que te ponga un recordatorio?" "sí, a las 9:30": the yes takes up
    # what the question offered instead, not the request it could not do.
    question = closing_question(previous_answer)
    if question and (lead := _OFFER_LEAD.match(question)):
        offered = asked_by_rules(question[lead.end():])
        if offered:
            return offered
    return asked_by_rules(previous_request)


# An offer of the assistant's own: "¿Quieres que te ponga…?", "Want me to…?", "Shall I…?", "¿Te lo apunto…?".
_OFFER_LEAD_WORDS = (r"(?:(?:quieres|quer[ée]s|quiere|prefieres|te\s+parece\s+(?:bien\s+)?)\s+que\s+(?:te\s+|le\s+)?"
                     r"|(?:do\s+you\s+)?want\s+me\s+to\s+|shall\s+i\s+|should\s+i\s+|would\s+you\s+like\s+me\s+to\s+"
                     r"|(?:can|may)\s+i\s+)")
_OFFER_LEAD = re.compile(r"\s*¿?\s*" + _OFFER_LEAD_WORDS, _I)
# The same anywhere in a clause, and the other ways the assistant offers ("I could…", "¿puedo…?", "¿te lo
# apunto?"); not a guess at what the user would have done ("same as you'd have written it").
_OWN_OFFER = re.compile(r"\b" + _OFFER_LEAD_WORDS + r"|\b(?:could\s+i|i\s+(?:can|could)|like\s+me\s+to|puedo|"
                        r"podr[íi]a)\b|^\W*¿?\s*(?:te|se\s+lo|se\s+la|lo|la|le)\s+[^\W\d_]+o\b", _I)


def offers_to_act(text: str) -> bool:
    """Whether `text` is the assistant offering to act ("Shall I set…?", "¿Quieres que te lo apunte?")."""
    return bool(_OWN_OFFER.search(text))


# "¿Qué es mejor, apuntar los gastos en una nota o…?", "should I add a reminder?": a question that
# weighs an action asks for advice, not for the action.
_ADVICE_QUESTION = re.compile(
    r"(?:^|(?<=[.!?¡¿\n]))\s*¿?\s*(?:qu[ée]\s+es\s+mejor|qu[ée]\s+(?:me\s+)?(?:recomiendas|aconsejas|sugieres)|"
    r"(?:es|ser[íi]a)\s+mejor|conviene|vale\s+la\s+pena|deber[íi]a|which\s+is\s+better|what'?s\s+better|"
    r"what\s+is\s+better|is\s+it\s+better|would\s+it\s+be\s+better|should\s+i|do\s+you\s+recommend|"
    r"is\s+it\s+worth)\b[^.!?\n]*\?",
    _I,
)


# Spanish moves the written accent when a pronoun is attached ("reserva" → "resérvame", "agéndalo"):
# matched without accents, the clitic forms are the voseo ones the patterns know ("reservame").
# One letter for one, so positions in the text stay where they were.
_UNACCENTED = str.maketrans("áéíóúüÁÉÍÓÚÜ", "aeiouuAEIOUU")


MAX_GERUNDS = 8
"""'Mind …ing' requests read in one message: each is one more pass of the patterns over a short piece."""


# Words as texted ("rmnd me 2 feb", "q te acuerdes q…", "rmbr my lock is 0707") are spelled out (bot.core.texting).
# "del receipts-4", "del nota chorradas": delete, where "del" can be nothing else (not "del lunes al viernes").
_TEXTED_DELETE = re.compile(
    rf"(?:^|(?<=[.!?;:,¡¿\n]))(\s*)del(?=\s+(?:notes?|notas?|the|my|mi|mis|list|lista|reminders?|recordatorios?|that|this|"
    rf"it|{_NAMED})(?![\w-]))", _I)


def _untexted(text: str) -> str:
    return _TEXTED_DELETE.sub(r"\1delete", spelled_out(text))


def asked_by_rules(user_text: str) -> frozenset[ActionKind]:
    """The kinds of action the user's words ask for with a verb the rules know (no classifier)."""
    text = _untexted(_ADVICE_QUESTION.sub(" ", user_text[:4000])).translate(_UNACCENTED)
    kinds = set(_verb_kinds(text))
    for match in islice(_MIND.finditer(text), MAX_GERUNDS):
        stem = match.group(1)
        # "noting" is "note", "popping" is "pop", "remembering" is "remember".
        for verb in dict.fromkeys((stem, stem + "e", stem[:-1] if stem[-1] == stem[-2] else stem)):
            kinds |= _verb_kinds(f"please {verb}{text[match.end():match.end() + 200]}")
    return frozenset(kinds)


def _verb_kinds(text: str) -> frozenset[ActionKind]:
    """The kinds the patterns find in `text` (already cut and unaccented)."""
    kinds: set[ActionKind] = set()
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            before = text[max(0, match.start(1) - 12):match.start(1)]
            if _NEGATED_REQUEST.search(before):
                continue
            if _is_past_statement(text, match.start(1)):
                continue
            kinds.add(kind)
            break
    for kind, pattern in _ANYWHERE:
        if pattern.search(text):
            kinds.add(kind)
    return frozenset(kinds)


# A verb whose past is its bare form ("put", "set"), then what came of it in the past: "Put twenty bucks on the
# Eagles and they got smashed, ha" tells what the user did.
_SAME_IN_PAST = re.compile(r"(?:put|set|cut|bet|let|shut|hit|quit|spread)\b", re.IGNORECASE)
_WHAT_CAME_OF_IT = re.compile(r"^[^.!?\n]{0,120}?\band\s+(?:then\s+)?(?:they|he|she|it|we|the\s+\w+)\s+"
                              r"(?:got|were|was|lost|won|went|came|had|did|never|just|\w+ed)\b", re.IGNORECASE)


def _is_past_statement(text: str, at: int) -> bool:
    """'I sent', 'I've added': the user reports something, they do not ask for it."""
    if _SAME_IN_PAST.match(text, at) and _WHAT_CAME_OF_IT.match(text, at):
        return True
    before = text[max(0, at - 20):at].lower()
    # ("What did you just save?" asks about what was done: no request either.)
    return bool(re.search(r"\b(?:i|we|i've|we've|i\s+have|i\s+had)\s+$"
                          r"|\b(?:did|have|has|had)\s+(?:you|u|ya|it|they|we|i)\s+(?:just\s+|already\s+)?$", before))


def reported_actions(user_text: str) -> frozenset[ActionKind]:
    """Kinds of action the user says they, or someone, did ('I sent the invoice', 'le mandé', 'who sent it?')."""
    from bot.core.honesty.claims import claimed_kinds

    text = user_text[:4000]
    kinds: set[ActionKind] = set()
    for match in _SAID_AS_DONE.finditer(text):
        window = text[match.start():match.end() + 40]
        kinds |= claimed_kinds(window[: len(match.group(0)) + 1])
        kinds |= claimed_kinds(match.group(0))
        # A verb with its particle after the object: "I already stood the medevac down", "we called it off".
        particle = _PARTICLE_AFTER.match(text, match.end())
        if particle:
            kinds |= claimed_kinds(match.group(0) + particle.group(0))
        # "I paid the bill and booked the car in": the verbs after "and" have the same subject.
        sentence = _SENTENCE_END.split(text[match.end():match.end() + 300], maxsplit=1)[0]
        for verb in _COORDINATED_PAST.finditer(sentence):
            kinds |= claimed_kinds(verb.group(1))
    # "Who sent the invoice?", "¿quién escribió el Quijote?": someone did it, and the answer says who.
    for match in _WHO_DID.finditer(text):
        kinds |= claimed_kinds(match.group(1))
    return frozenset(kinds)


# Where the user tells of something done: "I sent", "we've booked", "he mandado", "le pagué".
_SAID_AS_DONE = re.compile(
    r"\b(?:i|we)(?:\s*'ve|\s+have|\s+had)?(?:\s+(?:already|just|finally|also|now))?\s+\w+"
    r"|\b(?:he|hemos|había|habíamos)\s+\w+(?:ado|ido|to|cho)\b"
    r"|\b\w+(?:é|í|amos|imos)\b"
    # Someone named, in the past: "Done! The Ever Alpine cleared Miraflores at 14:10", "Marta sent it".
    r"|\b(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+){0,3}\s+(?:(?:has|had|just|already|finally)\s+)?"
    r"(?-i:[a-z]+ed|sent|paid|put|set|made|wrote|took|got)\b",
    _I,
)
_PARTICLE_AFTER = re.compile(r"\s+(?:[\w'-]+\s+){0,3}?(?:down|off)\b", _I)
_WHO_DID = re.compile(r"\b(?:who|qui[ée]n(?:es)?)\s+(?:(?:me|te|le|les|nos|lo|la|se\s+lo|se\s+la)\s+)?"
                      r"([^\W\d_]{3,})", _I)
_SENTENCE_END = re.compile(r"[.;!?\n]")
_COORDINATED_PAST = re.compile(
    r"(?:,|\band|\bthen)\s+(?:(?:also|then|just|already)\s+)?([^\W\d_]{2,}ed|sent|put|set|made|wrote|paid|bought|"
    r"told|kept|gave|took|did|got)\b", _I)

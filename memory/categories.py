"""Category words in a question and the common things they stand for ("activities" -> swimming,
hiking, painting...; "mascotas" -> perro, gato...).

A question asking for a kind of thing ("What pets does she have?") rarely shares a word with the
memories that answer it ("our dog Max"), and a small multilingual embedding does not link the
category to its members either. This is a hand-written, general English/Spanish list of the
usual members of everyday categories (written from common knowledge, not from any benchmark's
answers), used by retrieval as one more keyword ranker. It is static: it stores nothing about
the user, so forgetting has nothing of it to erase.
"""

from __future__ import annotations

from memory.text import MAX_QUERY_TERMS, words

# Each entry: the category's words (singular and plural) and its usual members, in English and
# in Spanish; a question's language is that of the word it used. Members are single words: the
# keyword search ORs words (FTS5 with the porter stemmer, so "swimming" also finds "swim"), and
# a multi-word name would split into common words ("new", "san"). The likeliest members first:
# only MAX_QUERY_TERMS are searched.
_ENTRIES: tuple[tuple[str, str, str, str], ...] = (
    ("activity activities hobby hobbies pastime pastimes interests",
     "swimming running hiking camping cycling painting drawing reading writing cooking baking gardening "
     "dancing singing yoga fishing surfing skiing climbing photography knitting pottery chess gaming "
     "volunteering travelling kayaking skating sewing meditation woodworking",
     "actividad actividades afición aficiones pasatiempo pasatiempos",
     "nadar correr caminar senderismo acampar pintar dibujar leer escribir cocinar bailar cantar pescar "
     "jardinería yoga fotografía ajedrez viajar"),
    ("sport sports",
     "soccer football basketball baseball tennis golf hockey volleyball rugby cricket swimming running "
     "cycling boxing wrestling skiing surfing karate judo taekwondo badminton softball lacrosse marathon",
     "deporte deportes",
     "fútbol baloncesto natación ciclismo tenis boxeo golf correr esquí surf"),
    ("pet pets animal animals",
     "dog dogs puppy cat cats kitten turtle turtles fish bird parrot hamster rabbit bunny horse snake lizard",
     "mascota mascotas animales",
     "perro perros cachorro gato gatos tortuga pez pájaro loro conejo caballo"),
    ("books novels authors",
     "book novel author reading read series memoir biography fiction poetry library",
     "libros novelas autores",
     "libro novela autor leer biografía poesía biblioteca"),
    ("instrument instruments",
     "guitar piano violin drums flute clarinet saxophone trumpet cello ukulele harmonica keyboard",
     "instrumento instrumentos",
     "guitarra piano violín batería flauta clarinete saxofón trompeta"),
    ("dessert desserts sweets",
     "cake cookies pie cream brownies cupcakes pudding chocolate tart pastry muffins donuts",
     "postre postres dulces",
     "pastel galletas helado tarta flan chocolate bizcocho"),
    ("food foods dish dishes meals recipes",
     "pasta soup salad curry stew pizza tacos bread sauce roast rice sandwich burger cake cookies recipe",
     "comida comidas platos recetas",
     "sopa ensalada pan arroz receta guiso pizza pasta tortilla"),
    ("country countries",
     "France Spain Italy Germany England Britain Ireland Scotland Portugal Greece Netherlands Switzerland "
     "Sweden Norway Poland Turkey Russia Japan China Korea India Thailand Vietnam Australia Canada Mexico "
     "Brazil Argentina Peru Colombia Egypt Morocco",
     "país países",
     "Francia España Italia Alemania Inglaterra Irlanda Portugal Grecia Suiza Japón China México "
     "Argentina Brasil Perú Colombia Marruecos"),
    ("european europe",
     "France Spain Italy Germany England Britain Ireland Scotland Portugal Greece Netherlands Belgium "
     "Switzerland Austria Sweden Norway Denmark Finland Iceland Poland Czech Hungary Croatia",
     "europa europeos europeas",
     "Francia España Italia Alemania Inglaterra Irlanda Portugal Grecia Holanda Bélgica Suiza Austria "
     "Suecia Noruega Polonia"),
    ("city cities",
     "Paris London Rome Madrid Barcelona Berlin Amsterdam Lisbon Vienna Prague Tokyo Sydney Toronto "
     "Vancouver Chicago Boston Seattle Miami Denver Austin Atlanta Dallas Houston Portland York Angeles "
     "Francisco Vegas Philadelphia Nashville",
     "ciudad ciudades",
     "París Londres Roma Madrid Barcelona Berlín Lisboa Sevilla Valencia Bilbao Tokio"),
    ("state states",
     "California Florida Texas Colorado Hawaii Alaska Arizona Oregon Washington Nevada Utah Montana "
     "Michigan Ohio Illinois Georgia Tennessee Virginia Carolina Massachusetts Maine Vermont Louisiana "
     "Pennsylvania Minnesota Wisconsin Idaho Wyoming Kentucky Alabama",
     "estado estados",
     "California Florida Texas Colorado Hawái Arizona Nevada"),
    ("places locations",
     "beach park mountains lake forest museum city trip travel visited island river",
     "lugares sitios",
     "playa parque montaña lago bosque museo ciudad viaje isla río"),
    ("event events",
     "party festival concert conference parade fundraiser wedding ceremony workshop meetup competition "
     "tournament race marathon exhibition fair celebration gala rally charity",
     "evento eventos",
     "fiesta festival concierto conferencia desfile boda ceremonia taller torneo carrera feria"),
    ("bands artists musicians concerts",
     "concert band singer album song festival gig show musician",
     "bandas grupos artistas músicos conciertos",
     "concierto banda grupo cantante disco canción festival"),
    ("movies films",
     "movie film series show watched cinema theater documentary episode",
     "películas",
     "película serie cine documental"),
    ("games",
     "game chess cards monopoly scrabble puzzle console playstation xbox nintendo",
     "juegos",
     "juego ajedrez cartas consola"),
    ("exercise exercises workouts",
     "running gym weights yoga pilates workout squats lifting cardio stretching swimming cycling hiking",
     "ejercicio ejercicios",
     "correr gimnasio pesas yoga pilates nadar bici"),
    ("family children kids",
     "son daughter kids children wife husband mother father mom dad brother sister grandma grandpa",
     "familia hijos niños",
     "hijo hija hijos esposa marido madre padre hermano hermana abuela abuelo"),
    ("art crafts",
     "painting drawing sculpture pottery photography sketch canvas watercolor mural portrait",
     "arte manualidades",
     "pintura dibujo escultura cerámica fotografía retrato"),
    ("causes charities",
     "charity fundraiser donate donation volunteer volunteering nonprofit awareness campaign shelter",
     "causas",
     "caridad donación voluntario campaña refugio"),
    ("languages",
     "English Spanish French German Italian Portuguese Chinese Japanese Korean Arabic Russian",
     "idiomas lenguas",
     "inglés español francés alemán italiano portugués chino japonés"),
)

_LEXICON: dict[str, list[tuple[str, ...]]] = {}
for english_keys, english, spanish_keys, spanish in _ENTRIES:
    for keys, members in ((english_keys, english), (spanish_keys, spanish)):
        for key in keys.split():
            _LEXICON.setdefault(key, []).append(tuple(members.split()))


def category_members(question: str, limit: int = MAX_QUERY_TERMS) -> list[str]:
    """The usual members of the categories the question asks about, without the question's own
    words (its own ranker has them) or repeats; with several categories, taken from each in
    turn, so each has its likeliest members in the first `limit`. Empty when it names none."""
    asked = words(question)
    lists = [members for word in dict.fromkeys(asked) for members in _LEXICON.get(word, ())]
    own = set(asked)
    chosen: dict[str, None] = {}
    for depth in range(max((len(members) for members in lists), default=0)):
        for members in lists:
            if depth < len(members) and members[depth].casefold() not in own:
                chosen.setdefault(members[depth], None)
    return list(chosen)[:limit]

#!/usr/bin/env python3
"""Generate the embedded default reading-comprehension data set of srcframework.

The data set is small, original and synthetic.  Every paragraph describes one
fictional entity (a town, river, lake, scientist, ship, company, festival or
musical instrument) whose name is built from invented syllables, so none of it
is copied from SQuAD or any other corpus.  Paragraphs are 4-8 sentences drawn
from many sentence templates; several sentences mention other years, people and
places on purpose, so that a model has to read the question to pick the right
span.  Each paragraph carries 3-6 questions written from their own templates
(often paraphrasing the sentence instead of repeating it), and every answer is
an exact character span of the paragraph.

Output, in SQuAD v1.1 JSON format:

    srcframework/data/default/train.json   (~250 paragraphs, ~1,000 questions)
    srcframework/data/default/dev.json     (~50 paragraphs, ~200 questions;
                                            questions carry 1-3 answers)

The generator uses only the standard library and a fixed ``random.Random``
seed, so running ``python3 scripts/make_default_data.py`` from the repository
root (or anywhere else) always rewrites byte-identical files.
"""

from __future__ import annotations

import json
import random
import re
import string
from dataclasses import dataclass, field
from pathlib import Path

SEED = 20240611
N_TRAIN = 250
N_DEV = 50
MAX_WORDS = 150
OUT_DIR = Path(__file__).resolve().parent.parent / "srcframework" / "data" / "default"

# ---------------------------------------------------------------------------
# Invented names
# ---------------------------------------------------------------------------

SYLLABLES = [
    "bra", "vel", "kor", "thal", "osk", "ur", "zan", "quel", "ith", "ros",
    "vak", "lenn", "tor", "em", "sil", "gar", "nev", "fen", "dra", "lys",
    "kess", "sor", "al", "ve", "ish", "tar", "qua", "mun", "ry", "ost",
    "hel", "bar", "ze", "wyn", "cal", "dur", "pel", "rin", "mor", "ask",
    "yl", "vor", "ebb", "tann", "ix", "orn", "sev", "kal", "ul", "dre",
    "mira", "jast", "ov", "pra", "shen", "tuv", "ael", "grim", "hov", "lir",
]
PLACE_ENDINGS = ["", "", "", "a", "o", "en", "ith", "ora", "ask", "mere", "holt", "ey"]
GIVEN_ENDINGS = {
    "f": ["a", "ine", "elle", "ia", "isse", "eth"],
    "m": ["o", "an", "ric", "ek", "im", "ar"],
}
SURNAME_ENDINGS = ["", "", "ard", "en", "ow", "isk", "mund", "ley", "arro", "ett"]

# Combinations of the syllables above that are real English words, or real
# names and places; they are never used.
BLOCKLIST = {
    "Alan", "Alar", "Alaska", "Alaskan", "Aline", "Alisha", "Alkaline", "Alta", "Altar",
    "Bara", "Barbra", "Baren", "Barista", "Barry", "Brasilia", "Brave", "Bravery",
    "Cala", "Calen", "Calve", "Carry", "Dorian", "Dura", "Duran", "Emma", "Garden",
    "Gareth", "Garish", "Garry", "Helen", "Helix", "Hello", "Ishim", "Ishtar", "Kala",
    "Koran", "Lira", "Marry", "Mira", "Miro", "Mora", "Moral", "Moran", "Morass",
    "Moro", "Mortar", "Neva", "Orion", "Oska", "Ostrava", "Oval", "Pella", "Praia",
    "Quavery", "Rosa", "Rosen", "Rosy", "Ryan", "Sila", "Silo", "Silvery", "Sorry",
    "Tara", "Tarim", "Taro", "Tarry", "Tarzan", "Thalia", "Tora", "Torah", "Torino",
    "Tory", "Ural", "Urals", "Urine", "Veal", "Vela", "Velar", "Vera", "Very",
    "Zanzibar", "Zeal", "Zebra", "Zeros",
}

# Letter sequences that syllables can run together into; names containing
# them are skipped.
UNWANTED = re.compile(
    r"rape|shit|anal|nazi|cum|fag|nig|slut|cunt|fuk|piss|porn|sex|ass|dick|cock|twat",
    re.IGNORECASE)


class NameMaker:
    """Builds invented names and never hands out the same one twice."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set(BLOCKLIST)

    def _fresh(self, build) -> str:
        while True:
            name = build()
            key = name.capitalize()
            if (key not in self.used and 4 <= len(name) <= 12
                    and not UNWANTED.search(name)):
                self.used.add(key)
                return name

    def _stem(self, lo: int = 2, hi: int = 3) -> str:
        n = self.rng.randint(lo, hi)
        parts: list[str] = []
        while len(parts) < n:
            syl = self.rng.choice(SYLLABLES)
            if not parts or syl != parts[-1]:
                parts.append(syl)
        s = "".join(parts)
        # Avoid triple letters such as "ossk" -> keep them readable.
        s = re.sub(r"(.)\1\1+", r"\1\1", s)
        return s

    def place(self) -> str:
        return self._fresh(
            lambda: (self._stem(2, 2) + self.rng.choice(PLACE_ENDINGS)).capitalize()
        )

    def word(self) -> str:
        """A lower-case invented common noun (instrument, mineral ...)."""
        return self._fresh(lambda: self._stem(2, 3)).lower()

    def given(self, sex: str) -> str:
        return self._fresh(
            lambda: (self._stem(1, 2) + self.rng.choice(GIVEN_ENDINGS[sex])).capitalize()
        )

    def surname(self) -> str:
        return self._fresh(
            lambda: (self._stem(2, 2) + self.rng.choice(SURNAME_ENDINGS)).capitalize()
        )

    def person(self, sex: str | None = None) -> str:
        sex = sex or self.rng.choice("fm")
        return f"{self.given(sex)} {self.surname()}"


# ---------------------------------------------------------------------------
# Plain vocabulary
# ---------------------------------------------------------------------------

MONTHS = ["January", "February", "March", "April", "May", "June", "July",
          "August", "September", "October", "November", "December"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven",
                "eight", "nine", "ten", "eleven", "twelve"]
COLOURS = ["green", "amber", "grey", "blue", "copper", "silver", "crimson",
           "violet", "ochre", "white", "black", "golden"]
ANIMALS = ["heron", "fox", "owl", "stag", "hare", "otter", "falcon", "badger",
           "swan", "lynx", "crane", "wolf"]
WOODS = ["walnut", "pear wood", "maple", "cherry wood", "ash", "spruce",
         "juniper", "alder", "yew", "boxwood"]
CRAFTS = ["glassblowing", "wool weaving", "salt harvesting", "clockmaking",
          "cheese making", "copper mining", "boat building", "paper making",
          "bell founding", "rope making", "lace making", "pottery"]
REGION_FORMS = ["the {} Valley", "the {} Uplands", "the province of {}",
                "the {} Coast", "the {} Lowlands", "the district of {}"]
BANKS = ["northern", "southern", "eastern", "western"]
WATER_CAUSES = ["the iron in the surrounding rocks", "the peat of the moors it drains",
                "the fine clay it carries", "the algae in its slow upper pools",
                "the chalk along its banks", "the copper ore in its hills"]
FISH = ["pike", "perch", "grayling", "eel", "trout", "bream", "carp", "barbel"]
PROFESSIONS = ["astronomer", "chemist", "botanist", "geologist", "physicist",
               "mathematician", "zoologist", "engineer", "physician", "meteorologist"]
DISCOVERY_FORMS = {
    "astronomer": ["the comet {W}", "a faint moon of the planet {W}"],
    "chemist": ["the element {w}ium", "a dye called {w} blue"],
    "botanist": ["the {w} orchid", "a frost-resistant strain of barley"],
    "geologist": ["the mineral {w}ite", "the {P} fault line"],
    "physicist": ["the {P} effect", "a way of measuring very small currents"],
    "mathematician": ["the {P} theorem", "a new method for solving cubic equations"],
    "zoologist": ["the {w} beetle", "a species of blind cave fish"],
    "engineer": ["a new kind of water turbine", "the {P} valve"],
    "physician": ["a cure for {w} fever", "the {P} test for anaemia"],
    "meteorologist": ["the {P} wind", "a cycle in the summer monsoon"],
}
BOOK_FORMS = ["On the {} of {}", "A Study of {} and {}", "Notes on {} and {}",
              "The Measure of {} and {}"]
BOOK_WORDS = ["Light", "Stones", "Motion", "Air", "Water", "Numbers", "Plants",
              "Heat", "Stars", "Salt", "Tides", "Insects"]
LEGACY_FORMS = ["a crater on the moon", "a street in {T}", "a research ship",
                "a school in {T}", "a mountain pass in {R}", "a lecture hall in {T}"]
SHIP_TYPES = ["three-masted schooner", "paddle steamer", "iron-hulled barque",
              "brigantine", "steam packet", "clipper", "fishing ketch", "merchant frigate"]
STEAM_TYPES = {"paddle steamer", "steam packet"}
CARGOES = ["tea", "copper ore", "timber", "grain", "salted fish", "wool",
           "coffee", "coal", "marble", "olive oil", "cotton", "tin"]
SHIP_FATES = ["ran aground", "was wrecked in a storm", "caught fire", "sank after a collision"]
PRODUCTS = ["bicycles", "sewing machines", "pencils", "typewriters", "umbrellas",
            "pocket watches", "lamps", "kitchen scales", "buttons", "gramophones",
            "radios", "cameras", "tin toys", "weighing machines", "matches"]
PRODUCTS2 = ["electric motors", "medical instruments", "solar panels", "garden tools",
             "ship engines", "office furniture", "optical lenses", "railway signals",
             "water pumps", "printing presses", "hearing aids", "microscopes"]
FESTIVAL_FORMS = ["the {} Lantern Festival", "the {} Harvest Fair", "the Festival of {}",
                  "the {} Boat Days", "the {} Midsummer Fair", "the {} Bell Festival"]
FESTIVAL_ORIGINS = ["a small market for local farmers", "a single evening of music",
                    "a fundraiser for a new bridge", "a celebration of the first harvest",
                    "a contest between two fishing villages", "a procession to the old well"]
HIGHLIGHTS = ["a procession of paper lanterns", "a race of painted boats",
              "a competition for the longest loaf", "a parade of decorated carts",
              "a night of bonfires on the hills", "a contest of bell ringers",
              "a dance performed on stilts", "a display of kites"]
FOODS = ["honey cakes", "smoked eel", "plum dumplings", "roasted chestnuts",
         "barley soup", "fried dough rings", "spiced pears", "salted herring"]
CANCEL_REASONS = ["heavy flooding", "an outbreak of influenza", "a severe drought",
                  "a fire in the main square", "a long strike", "a violent storm"]
INSTRUMENT_KINDS = ["string", "bowed string", "plucked string"]
PLAY_METHODS = {
    "bowed string": ["a short horsehair bow", "a bow held underhand", "a long curved bow"],
    "plucked string": ["a goose-quill plectrum", "the bare fingers", "a bone plectrum"],
    "string": ["two small wooden hammers", "a pair of padded sticks", "the bare fingers"],
}
INSTRUMENT_PLACES = ["at weddings", "in church processions", "at harvest dances",
                     "in shepherd songs", "at funerals", "in town bands"]
LEGEND_BEINGS = ["a giant", "a grieving queen", "a water spirit", "a lost shepherdess",
                 "a sea serpent", "a wandering monk"]


def article(word: str) -> str:
    return "an" if word[0].lower() in "aeiou" else "a"


def num(n: int) -> str:
    """Small numbers as words, larger ones as digits, as in ordinary prose."""
    return NUMBER_WORDS[n] if n < len(NUMBER_WORDS) else str(n)


def thousands(rng: random.Random, lo: int, hi: int, step: int = 10) -> str:
    return f"{rng.randrange(lo, hi, step):,}"


# ---------------------------------------------------------------------------
# Facts: sentence templates and question templates
# ---------------------------------------------------------------------------
#
# Every template is a str.format() pattern.  {N} is the entity's full name,
# {S} a short way to refer to it ("the town", the surname, "the ship" ...), {P}
# a pronoun and {Pp} its possessive.  A sentence that starts in lower case is
# capitalised automatically.  A question is (template, answer_field); it is
# only used with a sentence template that contains the answer field and every
# other field the question mentions, so every question is answerable from the
# context it is attached to.


@dataclass
class Fact:
    sents: list[str]
    qs: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Kind:
    name: str
    intro: Fact
    facts: list[Fact]


TOWN = Kind(
    "town",
    Fact(
        ["{N} is a town in {region} that was founded in {founded} by {founder}.",
         "The town of {N} was founded by {founder} in {founded} in what is now {region}.",
         "{N}, a market town in {region}, was established in {founded} by the merchant {founder}."],
        [("When was {N} founded?", "founded"),
         ("In what year was the town of {N} established?", "founded"),
         ("Who founded {N}?", "founder"),
         ("Which person is credited with establishing {N}?", "founder"),
         ("In which region is {N} located?", "region"),
         ("Where is the town of {N}?", "region")]),
    [
        Fact(["{S} lies on the {bank} bank of the {river}, some {dist_km} from the sea.",
              "It stands on the {bank} bank of the {river}."],
             [("On which river does {N} stand?", "river"),
              ("Which river flows past {N}?", "river"),
              ("On which bank of the {river} is {N} built?", "bank"),
              ("How far from the sea is {N}?", "dist_km")]),
        Fact(["In the census of {census}, {S} had a population of {pop}.",
              "According to the {census} census, about {pop} people lived in {S}.",
              "{N} had {pop} inhabitants at the census of {census}."],
             [("What was the population of {N} in {census}?", "pop"),
              ("How many people lived in {N} according to the {census} census?", "pop"),
              ("In which year was the census that counted {pop} inhabitants in {N}?", "census")]),
        Fact(["{S} is best known for its {craft}, which has been practised there for centuries.",
              "For centuries the wealth of {S} came from {craft}.",
              "Visitors come to {N} mainly to see its {craft} workshops."],
             [("What is {N} best known for?", "craft"),
              ("Which trade made {N} famous?", "craft"),
              ("What activity is {N} famous for?", "craft")]),
        Fact(["A railway station opened in {S} in {rail}, linking it to {rail_town}.",
              "The railway reached {S} in {rail}, with a line to {rail_town}."],
             [("When did the railway reach {N}?", "rail"),
              ("In what year did {N} get a railway station?", "rail"),
              ("Which town was {N} connected to by rail?", "rail_town")]),
        Fact(["The current mayor, {mayor}, was elected in {mayor_year}.",
              "Since {mayor_year} the town has been governed by mayor {mayor}."],
             [("Who is the mayor of {N}?", "mayor"),
              ("Who currently leads the town council of {N}?", "mayor"),
              ("When was {mayor} elected?", "mayor_year")]),
        Fact(["A market is held in the main square every {day}.",
              "Every {day} farmers from the surrounding villages sell their produce in the square."],
             [("On which day is the market held in {N}?", "day"),
              ("What day of the week is market day in {N}?", "day")]),
        Fact(["Its oldest building, {church_name}, was completed in {church}.",
              "{church_name}, finished in {church}, is the oldest building in {S}."],
             [("What is the oldest building in {N}?", "church_name"),
              ("Which building in {N} is the oldest?", "church_name"),
              ("When was the oldest building in {N} completed?", "church")]),
        Fact(["The neighbouring village of {other} is older and was first recorded in {other_year}.",
              "Nearby {other}, first mentioned in {other_year}, was absorbed into {S} in {merge_year}."],
             [("Which neighbouring village of {N} was first recorded in {other_year}?", "other"),
              ("When was {other} first mentioned?", "other_year"),
              ("When was {other} absorbed into {N}?", "merge_year")]),
    ],
)


def town_values(rng: random.Random, nm: NameMaker) -> dict:
    name = nm.place()
    founded = rng.randint(1180, 1560)
    other_year = rng.randint(founded - 300, founded - 20)
    church = rng.randint(founded + 15, founded + 200)
    rail = rng.randint(1840, 1910)
    merge = rng.randint(1880, 1975)
    census = rng.choice([1990, 2000, 2001, 2010, 2011, 2020, 2021])
    mayor_year = rng.randint(2005, 2023)
    saint = nm.given(rng.choice("fm"))
    dist = rng.randint(12, 240)
    return dict(
        N=name, S=rng.choice(["the town", name]), P="it", Pp="its",
        region=rng.choice(REGION_FORMS).format(nm.place()),
        founded=founded, founder=nm.person(), river=f"{nm.place()} River",
        bank=rng.choice(BANKS), dist=dist, dist_km=f"{dist} kilometres",
        census=census, pop=thousands(rng, 1200, 95000), craft=rng.choice(CRAFTS),
        rail=rail, rail_town=nm.place(), mayor=nm.person(), mayor_year=mayor_year,
        day=rng.choice(WEEKDAYS), saint=saint, church=church,
        church_name=f"the church of Saint {saint}",
        other=nm.place(), other_year=other_year, merge_year=merge,
    )


RIVER = Kind(
    "river",
    Fact(
        ["{N} is a river about {length} long that rises in {source} and flows into {mouth}.",
         "Rising in {source}, {N} runs for roughly {length} before it empties into {mouth}.",
         "{N} flows for {length} from its source in {source} to {mouth}."],
        [("How long is {N}?", "length"),
         ("What is the length of {N}?", "length"),
         ("Where does {N} rise?", "source"),
         ("Where is the source of {N}?", "source"),
         ("Into what body of water does {N} flow?", "mouth"),
         ("Where does {N} end?", "mouth")]),
    [
        Fact(["It is fed by {tribs} tributaries, the largest of which is the {trib}.",
              "Of its {tribs} tributaries, the {trib} carries the most water."],
             [("How many tributaries does {N} have?", "tribs"),
              ("What is the largest tributary of {N}?", "trib"),
              ("Which tributary brings the most water to {N}?", "trib")]),
        Fact(["The first accurate map of its course was drawn by the explorer {explorer} in {mapped}.",
              "In {mapped} the explorer {explorer} became the first to map the whole river."],
             [("Who first mapped {N}?", "explorer"),
              ("Which explorer drew the first accurate map of {N}?", "explorer"),
              ("In what year was {N} first mapped?", "mapped")]),
        Fact(["Its water has {a_colour} {colour} tint because of {cause}.",
              "The {colour} colour of the water comes from {cause}."],
             [("What colour is the water of {N}?", "colour"),
              ("Why does the water of {N} look {colour}?", "cause"),
              ("What gives {N} its unusual colour?", "cause")]),
        Fact(["The river is crossed by {bridges} bridges, and the oldest of them dates from {bridge_year}.",
              "The oldest of the {bridges} bridges over {S} was built in {bridge_year}."],
             [("How many bridges cross {N}?", "bridges"),
              ("When was the oldest bridge over {N} built?", "bridge_year")]),
        Fact(["Barges can travel upstream as far as the town of {port}.",
              "The river is navigable as far as {port}."],
             [("How far up {N} can boats travel?", "port"),
              ("Up to which town is {N} navigable?", "port")]),
        Fact(["Fish such as the {fish} are common in its lower reaches.",
              "Anglers fish for {fish} in the slow lower reaches of {S}."],
             [("Which fish is common in the lower reaches of {N}?", "fish"),
              ("What kind of fish do anglers catch in the lower part of {N}?", "fish")]),
        Fact(["A great flood in {flood} destroyed the mill at {mill} but spared the town of {port2}.",
              "In {flood} the river burst its banks and swept away the mill at {mill}."],
             [("When did a great flood hit {N}?", "flood"),
              ("Which mill was destroyed when {N} flooded?", "mill")]),
    ],
)


def river_values(rng: random.Random, nm: NameMaker) -> dict:
    stem = nm.place()
    mapped, bridge_year, flood = rng.sample(range(1560, 1951), 3)
    colour = rng.choice(COLOURS[:6] + ["brown", "milky"])
    return dict(
        N=f"the {stem} River", S="the river", P="it", Pp="its",
        length=f"{rng.randint(40, 980)} kilometres",
        source=rng.choice(["the {} Hills", "Mount {}", "the {} Marshes", "the springs of {}",
                           "the {} Range"]).format(nm.place()),
        mouth=rng.choice(["the Sea of {}", "Lake {}", "the Bay of {}", "the {} Estuary"]).format(nm.place()),
        tribs=num(rng.randint(3, 41)), trib=nm.place(),
        explorer=nm.person(), mapped=mapped,
        colour=colour, a_colour=article(colour), cause=rng.choice(WATER_CAUSES),
        bridges=num(rng.randint(4, 60)), bridge_year=bridge_year,
        port=nm.place(), fish=rng.choice(FISH),
        flood=flood, mill=nm.place(), port2=nm.place(),
    )


LAKE = Kind(
    "lake",
    Fact(
        ["{N} is a lake in {region} covering about {area}.",
         "Covering roughly {area}, {N} is the largest lake in {region}.",
         "{N}, in {region}, has a surface area of {area}."],
        [("How large is {N}?", "area"),
         ("What is the surface area of {N}?", "area"),
         ("In which region is {N}?", "region"),
         ("Where is {N} located?", "region")]),
    [
        Fact(["At its deepest point it reaches {depth}.",
              "The lake is {depth} deep at its deepest point.",
              "Soundings taken in {survey} found a maximum depth of {depth}."],
             [("How deep is {N}?", "depth"),
              ("What is the maximum depth of {N}?", "depth"),
              ("When were the soundings of {N} taken?", "survey")]),
        Fact(["There are {islands} islands in the lake, the largest being {island}.",
              "{island} is the biggest of the {islands} islands in {S}."],
             [("How many islands are there in {N}?", "islands"),
              ("What is the largest island in {N}?", "island"),
              ("Which island is the biggest in {N}?", "island")]),
        Fact(["The town of {town} stands on its {bank} shore.",
              "On the {bank} shore lies the town of {town}, which was founded in {town_year}."],
             [("Which town stands on the {bank} shore of {N}?", "town"),
              ("What town is on the {bank} shore of {N}?", "town"),
              ("On which shore of {N} is {town}?", "bank")]),
        Fact(["The lake often freezes in winter, and the first recorded crossing on the ice was made by {crosser} in {crossing}.",
              "In {crossing}, {crosser} walked across the frozen lake, the first person known to do so."],
             [("Who first crossed {N} on the ice?", "crosser"),
              ("Who was the first person recorded walking across frozen {N}?", "crosser"),
              ("When was {N} first crossed on the ice?", "crossing")]),
        Fact(["Local legend says the lake was formed from the tears of {being} named {legend}.",
              "According to a local legend, {legend}, {being}, wept until the valley filled with water."],
             [("According to legend, whose tears formed {N}?", "legend"),
              ("What was {legend} in the legend of {N}?", "being")]),
        Fact(["A ferry has crossed the lake from {town2} since {ferry}.",
              "Since {ferry} a ferry has linked {town2} with the opposite shore."],
             [("Since when has a ferry crossed {N}?", "ferry"),
              ("From which town does the ferry across {N} leave?", "town2")]),
        Fact(["The lake is fed mainly by the {inflow_r}, and its only outlet is the {outflow}.",
              "Water leaves the lake through the {outflow}, while the {inflow_r} supplies most of it."],
             [("Which river feeds {N}?", "inflow_r"),
              ("What is the only outlet of {N}?", "outflow")]),
    ],
)


def lake_values(rng: random.Random, nm: NameMaker) -> dict:
    survey, crossing, ferry, town_year = rng.sample(range(1650, 1975), 4)
    inflow = nm.place()
    return dict(
        N=f"Lake {nm.place()}", S="the lake", P="it", Pp="its",
        region=rng.choice(REGION_FORMS).format(nm.place()),
        area=f"{rng.randint(6, 480)} square kilometres",
        depth=f"{rng.randint(9, 390)} metres", survey=survey,
        islands=num(rng.randint(2, 30)), island=nm.place(),
        town=nm.place(), bank=rng.choice(BANKS), town_year=town_year,
        crosser=nm.person(), crossing=crossing,
        being=rng.choice(LEGEND_BEINGS), legend=nm.given(rng.choice("fm")),
        ferry=ferry, town2=nm.place(),
        inflow=inflow, inflow_r=f"{inflow} River", outflow=nm.place(),
    )


SCIENTIST = Kind(
    "scientist",
    Fact(
        ["{N} (born {born}, died {died}) was {a_prof} {prof} from the town of {birthplace}.",
         "{N} was {a_prof} {prof}, born in {birthplace} in {born}.",
         "Born in {born} in the town of {birthplace}, {N} became one of the best-known {profs} of {Pp} time."],
        [("When was {N} born?", "born"),
         ("In what year was {N} born?", "born"),
         ("Where was {N} born?", "birthplace"),
         ("Which town was {N} from?", "birthplace"),
         ("What was the profession of {N}?", "prof"),
         ("When did {N} die?", "died")]),
    [
        Fact(["{P} studied at {univ} under {mentor}.",
              "At {univ}, {S} was taught by {mentor}, who became a lifelong friend."],
             [("Where did {N} study?", "univ"),
              ("At which university was {N} educated?", "univ"),
              ("Who was the teacher of {N} at {univ}?", "mentor"),
              ("Who taught {N}?", "mentor")]),
        Fact(["In {disc_year} {S} discovered {discovery}.",
              "{Pp} greatest achievement, the discovery of {discovery}, came in {disc_year}.",
              "{S} is remembered above all for discovering {discovery} in {disc_year}."],
             [("What did {N} discover?", "discovery"),
              ("What is {N} best remembered for discovering?", "discovery"),
              ("When did {N} make {Pp} most important discovery?", "disc_year")]),
        Fact(["{Pp} best-known book, {book}, was published in {book_year}.",
              "In {book_year} {S} published {book}, which was translated into {langs} languages."],
             [("What is the title of the best-known book by {N}?", "book"),
              ("Which book did {N} publish in {book_year}?", "book"),
              ("When did {N} publish {book}?", "book_year")]),
        Fact(["{P} was awarded the {award} in {award_year}.",
              "The {award} was given to {S} in {award_year}."],
             [("Which prize did {N} receive?", "award"),
              ("What honour was given to {N} in {award_year}?", "award"),
              ("In what year did {N} win the {award}?", "award_year")]),
        Fact(["Today {legacy} is named after {S}.",
              "{legacy_cap} bears the name of {S}."],
             [("What is named after {N}?", "legacy"),
              ("What was named in honour of {N}?", "legacy")]),
        Fact(["{Pp} younger {sib_rel}, {sibling}, became a well-known painter.",
              "{S} had {a_sib} {sib_rel}, the painter {sibling}, who was born in {sib_born}."],
             [("Who was the {sib_rel} of {N}?", "sibling"),
              ("Which relative of {N} became a painter?", "sibling")]),
        Fact(["From {post_year} {P} led the research institute in {post_town}.",
              "In {post_year} {S} moved to {post_town}, where {P} directed the local laboratory for many years."],
             [("In which town did {N} work from {post_year}?", "post_town"),
              ("When did {N} move to {post_town}?", "post_year")]),
    ],
)


def scientist_values(rng: random.Random, nm: NameMaker) -> dict:
    sex = rng.choice("fm")
    given, sur = nm.given(sex), nm.surname()
    born = rng.randint(1760, 1930)
    died = born + rng.randint(48, 94)
    disc_year, book_year, award_year, post_year = rng.sample(range(born + 24, died - 2), 4)
    prof = rng.choice(PROFESSIONS)
    word = nm.word()
    discovery = rng.choice(DISCOVERY_FORMS[prof]).format(
        W=word.capitalize(), w=word, P=sur if rng.random() < 0.5 else nm.surname())
    a, b = rng.sample(BOOK_WORDS, 2)
    legacy = rng.choice(LEGACY_FORMS).format(T=nm.place(), R=nm.place())
    sib_sex = rng.choice("fm")
    return dict(
        N=f"{given} {sur}", S=sur, P="she" if sex == "f" else "he",
        Pp="her" if sex == "f" else "his",
        born=born, died=died, prof=prof, a_prof=article(prof), profs=prof + "s",
        birthplace=nm.place(),
        univ=rng.choice(["the University of {}", "the {} Academy", "the {} Institute"]).format(nm.place()),
        mentor=nm.person(), disc_year=disc_year, discovery=discovery,
        book=rng.choice(BOOK_FORMS).format(a, b), book_year=book_year,
        langs=NUMBER_WORDS[rng.randint(3, 12)],
        award=rng.choice(["{} Medal", "{} Prize", "{} Award"]).format(nm.surname()),
        award_year=award_year, legacy=legacy, legacy_cap=legacy[0].upper() + legacy[1:],
        sib_rel="sister" if sib_sex == "f" else "brother",
        a_sib="a younger", sibling=f"{nm.given(sib_sex)} {sur}",
        sib_born=born + rng.randint(2, 9),
        post_year=post_year, post_town=nm.place(),
    )


SHIP = Kind(
    "ship",
    Fact(
        ["{N} was {a_type} {type} launched at {yard} in {launched}.",
         "{N}, {a_type} {type}, was launched in {launched} at the shipyard of {yard}.",
         "Launched at {yard} in {launched}, {N} was {a_type} {type} built for the coastal trade."],
        [("When was {N} launched?", "launched"),
         ("In what year did {N} first take to the water?", "launched"),
         ("Where was {N} built?", "yard"),
         ("At which shipyard was {N} launched?", "yard"),
         ("What kind of ship was {N}?", "type")]),
    [
        Fact(["She was designed by the shipwright {designer} and measured {length} from bow to stern.",
              "The shipwright {designer} drew her plans, giving her a length of {length}."],
             [("Who designed {N}?", "designer"),
              ("Which shipwright drew the plans of {N}?", "designer"),
              ("How long was {N}?", "length")]),
        Fact(["Her crew numbered {crew} sailors under Captain {captain}.",
              "Captain {captain} commanded her with a crew of {crew}."],
             [("How many sailors served on {N}?", "crew"),
              ("What was the size of the crew of {N}?", "crew"),
              ("Who commanded {N}?", "captain"),
              ("Who was the captain of {N}?", "captain")]),
        Fact(["On her maiden voyage in {maiden} she carried {cargo} to the port of {port}.",
              "Her first voyage, in {maiden}, took a cargo of {cargo} to {port}."],
             [("What cargo did {N} carry on her maiden voyage?", "cargo"),
              ("To which port did {N} sail on her first voyage?", "port"),
              ("What did {N} carry on her first trip?", "cargo")]),
        Fact(["She {fate} off {cape} in {lost}, and all of her crew were rescued.",
              "In {lost} she {fate} near {cape}; no lives were lost."],
             [("Where did {N} meet her end?", "cape"),
              ("In which year was {N} lost?", "lost"),
              ("What happened to {N} off {cape}?", "fate")]),
        Fact(["Her figurehead, {a_animal} {animal} carved from {wood}, is now displayed in the museum at {museum}.",
              "The museum at {museum} keeps her figurehead, which shows {a_animal} {animal}."],
             [("What animal did the figurehead of {N} show?", "animal"),
              ("What was the figurehead of {N} made of?", "wood"),
              ("Where is the figurehead of {N} now kept?", "museum")]),
        Fact(["In {refit} she was fitted with {engine_desc} built by {engine_maker}.",
              "A refit in {refit} gave her {engine_desc} made by {engine_maker}."],
             [("When was {N} refitted?", "refit"),
              ("Who built the engine installed in {N}?", "engine_maker")]),
        Fact(["Her sister ship, the {sister}, was launched {gap} years later.",
              "A near copy of her, the {sister}, followed in {sister_year}."],
             [("What was the name of the sister ship of {N}?", "sister"),
              ("Which ship was the sister of {N}?", "sister")]),
    ],
)


def ship_values(rng: random.Random, nm: NameMaker) -> dict:
    launched = rng.randint(1790, 1905)
    maiden = launched + rng.randint(0, 1)
    refit = launched + rng.randint(6, 20)
    lost = refit + rng.randint(3, 30)
    gap = rng.randint(2, 6)
    typ = rng.choice(SHIP_TYPES)
    animal = rng.choice(ANIMALS)
    return dict(
        N=f"the {nm.place()}", S="the ship", P="she", Pp="her",
        type=typ, a_type=article(typ), launched=launched,
        yard=nm.place(), designer=nm.person(), length=f"{rng.randint(18, 96)} metres",
        crew=num(rng.randint(8, 140)), captain=nm.person(), maiden=maiden,
        cargo=rng.choice(CARGOES), port=nm.place(), fate=rng.choice(SHIP_FATES),
        cape=rng.choice(["Cape {}", "the island of {}", "the {} Banks"]).format(nm.place()),
        lost=lost, animal=animal, a_animal=article(animal), wood=rng.choice(WOODS), museum=nm.place(),
        refit=refit, engine_maker=nm.person(),
        engine_desc="a new engine" if typ in STEAM_TYPES else "an auxiliary steam engine", sister=nm.place(), gap=NUMBER_WORDS[gap],
        sister_year=launched + gap,
    )


COMPANY = Kind(
    "company",
    Fact(
        ["{N} is a manufacturer founded in {founded} by {founder1} and {founder2}.",
         "{founder1} and {founder2} founded {N} in {founded}.",
         "{N} was set up in {founded} by two partners, {founder1} and {founder2}."],
        [("When was {N} founded?", "founded"),
         ("In what year was {N} set up?", "founded"),
         ("Who founded {N} together with {founder2}?", "founder1"),
         ("Who was the partner of {founder1} in founding {N}?", "founder2")]),
    [
        Fact(["Its headquarters are in {hq}, where the first workshop opened in {workshop}.",
              "The company is based in {hq}."],
             [("Where is {N} based?", "hq"),
              ("In which town does {N} have its headquarters?", "hq"),
              ("When did the first workshop of {N} open?", "workshop")]),
        Fact(["The firm began by making {product}, but today it is known mainly for {product2}.",
              "Although it first produced {product}, {S} now earns most of its money from {product2}."],
             [("What did {N} originally make?", "product"),
              ("What was the first product of {N}?", "product"),
              ("What is {N} mainly known for today?", "product2"),
              ("What does {N} chiefly sell nowadays?", "product2")]),
        Fact(["By {emp_year} it employed {employees} people.",
              "In {emp_year} the company had {employees} employees."],
             [("How many people did {N} employ in {emp_year}?", "employees"),
              ("What was the size of the workforce of {N} in {emp_year}?", "employees")]),
        Fact(["Its logo, {a_colour} {colour} {animal}, was introduced in {logo_year}.",
              "Since {logo_year} the company's logo has shown {a_colour} {colour} {animal}."],
             [("What animal appears in the logo of {N}?", "animal"),
              ("What colour is the {animal} in the logo of {N}?", "colour"),
              ("When was the logo of {N} introduced?", "logo_year")]),
        Fact(["In {acq_year} {S} bought its old rival {rival}.",
              "The takeover of its rival {rival} in {acq_year} doubled the size of the firm."],
             [("Which rival did {N} acquire?", "rival"),
              ("What company did {N} take over?", "rival"),
              ("When did {N} buy {rival}?", "acq_year")]),
        Fact(["Its chief executive since {ceo_year} has been {ceo}.",
              "{ceo}, who joined the firm as an apprentice, has run it since {ceo_year}."],
             [("Who runs {N}?", "ceo"),
              ("Who is the chief executive of {N}?", "ceo"),
              ("Since when has {ceo} led {N}?", "ceo_year")]),
        Fact(["The company motto is \"{motto}\".",
              "Every product carries the motto \"{motto}\"."],
             [("What is the motto of {N}?", "motto")]),
    ],
)

MOTTOS = ["Made to last", "Small parts, great works", "Precision first",
          "Always forward", "Quiet and true", "Built by hand", "Light and strong",
          "Measure twice"]


def company_values(rng: random.Random, nm: NameMaker) -> dict:
    founded = rng.randint(1820, 1960)
    workshop = founded + rng.randint(0, 3)
    emp_year, logo_year, acq_year = rng.sample(range(founded + 5, 2023), 3)
    ceo_year = rng.randint(1990, 2022)
    s1, s2 = nm.surname(), nm.surname()
    form = rng.randrange(4)
    if form == 0:
        name = f"{s1} & {s2}"
    elif form == 1:
        name = f"{s1} Brothers"
    elif form == 2:
        name = f"the {nm.place()} Works"
    else:
        name = f"the {nm.place()} Instrument Company"
    if form == 1:  # two brothers
        f1, f2 = f"{nm.given('m')} {s1}", f"{nm.given('m')} {s1}"
    else:
        f1 = f"{nm.given(rng.choice('fm'))} {s1}"
        f2 = f"{nm.given(rng.choice('fm'))} {s2}" if form == 0 else nm.person()
    p1, p2 = rng.choice(PRODUCTS), rng.choice(PRODUCTS2)
    colour = rng.choice(COLOURS)
    return dict(
        N=name, S="the company", P="it", Pp="its",
        founded=founded, founder1=f1, founder2=f2, hq=nm.place(), workshop=workshop,
        product=p1, product2=p2, emp_year=emp_year, employees=thousands(rng, 140, 26000),
        colour=colour, a_colour=article(colour), animal=rng.choice(ANIMALS), logo_year=logo_year,
        acq_year=acq_year, rival=rng.choice(["{} Ltd", "the {} Company", "{} and Sons"]).format(nm.surname()),
        ceo=f"{nm.given(rng.choice('fm'))} {s1}" if form in (0, 1) else nm.person(),
        ceo_year=ceo_year, motto=rng.choice(MOTTOS),
    )


FESTIVAL = Kind(
    "festival",
    Fact(
        ["{N} is held every {month} in the town of {town}.",
         "Each {month}, the town of {town} hosts {N}.",
         "{N} takes place in {town} every year in {month}."],
        [("In which month is {N} held?", "month"),
         ("When does {N} take place each year?", "month"),
         ("Where is {N} held?", "town"),
         ("Which town hosts {N}?", "town")]),
    [
        Fact(["It was first celebrated in {first}, when {organiser} organised {origin}.",
              "The festival began in {first} as {origin} organised by {organiser}."],
             [("When was {N} first celebrated?", "first"),
              ("In what year did {N} begin?", "first"),
              ("Who organised the first {N_short}?", "organiser"),
              ("How did {N} begin?", "origin")]),
        Fact(["The festival lasts {days_full} and attracts about {visitors} visitors.",
              "Over {days_full} it draws around {visitors} visitors."],
             [("How long does {N} last?", "days_full"),
              ("How many visitors does {N} attract?", "visitors"),
              ("About how many people visit {N}?", "visitors")]),
        Fact(["Its highlight is {highlight} on the final evening.",
              "Most visitors come for {highlight}, which closes the festival."],
             [("What is the highlight of {N}?", "highlight"),
              ("What event closes {N}?", "highlight")]),
        Fact(["Visitors traditionally eat {food} during the festival.",
              "Stalls sell {food}, the traditional food of the festival."],
             [("What food is traditionally eaten at {N}?", "food"),
              ("What do visitors to {N} traditionally eat?", "food")]),
        Fact(["The festival was cancelled only once, in {cancelled}, because of {reason}.",
              "Only in {cancelled} was it not held, owing to {reason}."],
             [("Why was {N} cancelled in {cancelled}?", "reason"),
              ("In which year was {N} not held?", "cancelled")]),
        Fact(["Since {music_year} the music programme has been directed by {director}.",
              "The composer {director} has led its music programme since {music_year}."],
             [("Who directs the music programme of {N}?", "director"),
              ("Since when has {director} led the music at {N}?", "music_year")]),
        Fact(["The festival's emblem is {emblem}, painted on every banner.",
              "Banners decorated with {emblem} hang over every street during the festival."],
             [("What is the emblem of {N}?", "emblem"),
              ("What is painted on the banners of {N}?", "emblem")]),
    ],
)


def festival_values(rng: random.Random, nm: NameMaker) -> dict:
    stem = nm.place()
    form = rng.choice(FESTIVAL_FORMS)
    name = form.format(stem)
    first = rng.randint(1780, 1975)
    cancelled = rng.randint(first + 5, 2021)
    music_year = rng.choice([y for y in range(1985, 2023) if y != cancelled])
    days = rng.randint(2, 10)
    colour, animal = rng.choice(COLOURS), rng.choice(ANIMALS)
    return dict(
        N=name, N_short=name[4:] if name.startswith("the ") else name,
        S="the festival", P="it", Pp="its",
        month=rng.choice(MONTHS), town=nm.place(), first=first, organiser=nm.person(),
        origin=rng.choice(FESTIVAL_ORIGINS), days=NUMBER_WORDS[days],
        days_full=f"{NUMBER_WORDS[days]} days", visitors=thousands(rng, 2000, 150000, 500),
        highlight=rng.choice(HIGHLIGHTS), food=rng.choice(FOODS), cancelled=cancelled,
        reason=rng.choice(CANCEL_REASONS), music_year=music_year, director=nm.person(),
        colour=colour, animal=animal, emblem=f"{article(colour)} {colour} {animal}",
    )


INSTRUMENT = Kind(
    "instrument",
    Fact(
        ["The {name} is a {ikind} instrument from {region} with {strings} strings.",
         "Originating in {region}, the {name} is a {ikind} instrument that has {strings} strings.",
         "The {name}, a {ikind} instrument with {strings} strings, is played throughout {region}."],
        [("How many strings does the {name} have?", "strings"),
         ("What is the number of strings on the {name}?", "strings"),
         ("Where does the {name} come from?", "region"),
         ("In which region did the {name} originate?", "region"),
         ("What type of instrument is the {name}?", "ikind")]),
    [
        Fact(["Its body is traditionally carved from {wood}, and its pegs are made of {peg}.",
              "Makers usually carve the body from a single block of {wood}."],
             [("What wood is the body of the {name} made from?", "wood"),
              ("From which material is the body of the {name} carved?", "wood"),
              ("What are the pegs of the {name} made of?", "peg")]),
        Fact(["It is played with {method}.",
              "Players sound the strings with {method}."],
             [("How is the {name} played?", "method"),
              ("What do players use to sound the strings of the {name}?", "method")]),
        Fact(["The earliest written description of the instrument is found in a letter by {writer} dated {desc_year}.",
              "In {desc_year}, {writer} described the {name} in a letter, the oldest written account of it."],
             [("Who wrote the earliest description of the {name}?", "writer"),
              ("When was the {name} first described in writing?", "desc_year"),
              ("In what year was the oldest written account of the {name} made?", "desc_year")]),
        Fact(["The most celebrated player of the {name} was {player}, who toured widely in the {decade}.",
              "{player}, the most famous {name} player of all, made the first recordings on it in {rec_year}."],
             [("Who was the most famous player of the {name}?", "player"),
              ("Which musician is best known for playing the {name}?", "player")]),
        Fact(["It is closely related to the {related}, which has a longer neck.",
              "The {related}, a close relative, is larger and has a longer neck."],
             [("To which instrument is the {name} closely related?", "related"),
              ("Which related instrument has a longer neck than the {name}?", "related")]),
        Fact(["It is heard mostly {occasion}.",
              "Traditionally the {name} is played {occasion}."],
             [("On what occasions is the {name} usually played?", "occasion"),
              ("Where is the {name} traditionally heard?", "occasion")]),
        Fact(["A school for {name} makers was opened in {school_town} in {school_year}.",
              "Since {school_year} makers have been trained at a school in {school_town}."],
             [("Where is the school for {name} makers?", "school_town"),
              ("When did the school for {name} makers open?", "school_year")]),
    ],
)


def instrument_values(rng: random.Random, nm: NameMaker) -> dict:
    name = nm.word()
    desc_year = rng.randint(1420, 1780)
    rec_year = rng.randint(1905, 1965)
    ikind = rng.choice(INSTRUMENT_KINDS)
    return dict(
        N=f"the {name}", name=name, S="the instrument", P="it", Pp="its",
        ikind=ikind, region=rng.choice(REGION_FORMS).format(nm.place()),
        strings=NUMBER_WORDS[rng.randint(3, 12)], wood=rng.choice(WOODS),
        peg=rng.choice(["bone", "horn", "ebony", "brass", "oak"]),
        method=rng.choice(PLAY_METHODS[ikind]), writer=nm.person(), desc_year=desc_year,
        player=nm.person(), decade=f"{rec_year // 10 * 10}s", rec_year=rec_year,
        related=nm.word(), occasion=rng.choice(INSTRUMENT_PLACES),
        school_town=nm.place(), school_year=rng.randint(1890, 2005),
    )


KINDS = [
    (TOWN, town_values),
    (RIVER, river_values),
    (LAKE, lake_values),
    (SCIENTIST, scientist_values),
    (SHIP, ship_values),
    (COMPANY, company_values),
    (FESTIVAL, festival_values),
    (INSTRUMENT, instrument_values),
]

# ---------------------------------------------------------------------------
# Rendering with character offsets
# ---------------------------------------------------------------------------

_FMT = string.Formatter()


def fields_of(template: str) -> set[str]:
    return {f for _, f, _, _ in _FMT.parse(template) if f}


def render(template: str, values: dict) -> tuple[str, dict[str, tuple[int, int]]]:
    """Fill a template and return the text plus the span of every field."""
    out: list[str] = []
    spans: dict[str, tuple[int, int]] = {}
    pos = 0
    for literal, name, spec, conv in _FMT.parse(template):
        out.append(literal)
        pos += len(literal)
        if name is not None:
            assert not spec and not conv, template
            text = str(values[name])
            spans.setdefault(name, (pos, pos + len(text)))
            out.append(text)
            pos += len(text)
    s = "".join(out)
    if s and s[0].islower():
        s = s[0].upper() + s[1:]
    return s, spans


def fill_question(template: str, values: dict) -> str:
    q = template.format(**values)
    q = q[0].upper() + q[1:]
    assert q.endswith("?"), q
    return q


# ---------------------------------------------------------------------------
# Paragraphs
# ---------------------------------------------------------------------------

PREFIXES = ("in ", "by ", "about ", "around ", "roughly ", "the ", "at ")
PERSON_FIELDS = {"founder", "mayor", "explorer", "crosser", "mentor", "sibling", "designer",
                 "captain", "engine_maker", "founder1", "founder2", "ceo", "organiser",
                 "director", "writer", "player"}


def alternatives(context: str, start: int, text: str, fld: str) -> list[tuple[str, int]]:
    """Other acceptable spans for a dev answer, like extra SQuAD annotators."""
    alts: list[tuple[str, int]] = []
    for p in PREFIXES:
        b = start - len(p)
        if b >= 0 and context[b:start] == p and (b == 0 or context[b - 1] == " "):
            alts.append((p + text, start - len(p)))
            break
    m = re.fullmatch(r"([\d,]+|[a-z]+) (kilometres|metres|days|square kilometres)", text)
    if m:
        alts.append((m.group(1), start))
    words = text.split()
    if fld in PERSON_FIELDS and len(words) == 2 and context.count(words[1]) == 1:
        alts.append((words[1], start + len(words[0]) + 1))
    if text.startswith("the ") and len(words) > 1:
        alts.append((text[4:], start + 4))
    return alts


def build_paragraph(rng: random.Random, nm: NameMaker, kind: Kind, make_values):
    values = make_values(rng, nm)
    n_sent = rng.randint(4, 8)
    # The introductory sentence comes first, the others in random order.
    facts = [kind.intro] + rng.sample(kind.facts, min(n_sent - 1, len(kind.facts)))

    while True:
        sents = []
        for i, fact in enumerate(facts):
            tmpl = rng.choice(fact.sents)
            vals = dict(values)
            if i == 0:
                vals["S"] = values["N"]
            text, spans = render(tmpl, vals)
            sents.append((text, spans, tmpl, fact))
        context = " ".join(s[0] for s in sents)
        if len(context.split()) < MAX_WORDS or len(facts) <= 4:
            break
        facts = facts[:-1]
    assert len(context.split()) < MAX_WORDS, context
    assert context.isascii(), context

    # Candidate questions per sentence: (question, answer text, answer_start, field).
    cands = []
    offset = 0
    for text, spans, tmpl, fact in sents:
        avail = fields_of(tmpl) | {"N", "N_short", "name", "Pp"}
        per_fact = []
        for qt, ans in fact.qs:
            if ans not in spans or not fields_of(qt) <= avail:
                continue
            a0, a1 = spans[ans]
            start = offset + a0
            ans_text = context[start:offset + a1]
            q = fill_question(qt, values)
            # Never ask a question whose answer is already spelled out in it.
            if ans_text.lower() in q.lower():
                continue
            per_fact.append((q, ans_text, start, ans))
        rng.shuffle(per_fact)
        cands.append(per_fact)
        offset += len(text) + 1

    # Pick 3-6 questions with different answers, spread over the sentences:
    # one per sentence first, then a second one from some sentences.
    want = rng.choice([3, 3, 4, 4, 4, 5, 6])
    qas, seen_starts = [], set()
    for round_ in range(3):
        order = list(range(len(cands)))
        rng.shuffle(order)
        for i in order:
            if len(qas) >= want:
                break
            for q, a, s, fld in cands[i]:
                if s not in seen_starts and sum(1 for x in qas if x[4] == i) == round_:
                    seen_starts.add(s)
                    qas.append((q, a, s, fld, i))
                    break
    qas = [x[:4] for x in qas]
    assert 3 <= len(qas) <= 6, (context, qas)
    # Present questions in the order their answers occur, as annotators tend to.
    qas.sort(key=lambda x: x[2])
    title = values["N"].removeprefix("the ").replace(" ", "_").replace("&", "and")
    title = title[0].upper() + title[1:]
    return title, context, qas


def build_split(rng: random.Random, nm: NameMaker, n: int, split: str) -> dict:
    kinds = [KINDS[i % len(KINDS)] for i in range(n)]
    rng.shuffle(kinds)
    data, n_questions = [], 0
    for kind, make_values in kinds:
        title, context, qas = build_paragraph(rng, nm, kind, make_values)
        out_qas = []
        for q, a, s, fld in qas:
            assert context[s:s + len(a)] == a, (context, a, s)
            answers = [{"text": a, "answer_start": s}]
            if split == "dev":
                alts = alternatives(context, s, a, fld)
                rng.shuffle(alts)
                for t, st in alts[:rng.randint(0, 2)]:
                    answers.append({"text": t, "answer_start": st})
            for ans in answers:
                assert context[ans["answer_start"]:ans["answer_start"] + len(ans["text"])] == ans["text"]
            n_questions += 1
            out_qas.append({"id": f"default-{split}-{n_questions:06d}", "question": q,
                            "answers": answers})
        data.append({"title": title, "paragraphs": [{"context": context, "qas": out_qas}]})
    return {"version": "1.1", "data": data}


def check_templates() -> None:
    """Every question must be usable with at least one sentence of its fact."""
    for kind, _ in KINDS:
        for fact in [kind.intro] + kind.facts:
            for qt, ans in fact.qs:
                ok = any(ans in fields_of(st) and
                         fields_of(qt) <= fields_of(st) | {"N", "N_short", "name", "Pp"}
                         for st in fact.sents)
                assert ok, (kind.name, qt)


def main() -> None:
    check_templates()
    rng = random.Random(SEED)
    nm = NameMaker(rng)
    # One generator and one name pool for both splits, so that no entity (and
    # no invented name) of the dev set also occurs in the training set.
    train = build_split(rng, nm, N_TRAIN, "train")
    dev = build_split(rng, nm, N_DEV, "dev")
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for split, obj in (("train", train), ("dev", dev)):
        path = OUT_DIR / f"{split}.json"
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            json.dump(obj, fh, indent=1, ensure_ascii=True)
            fh.write("\n")
        n_par = sum(len(a["paragraphs"]) for a in obj["data"])
        n_q = sum(len(p["qas"]) for a in obj["data"] for p in a["paragraphs"])
        print(f"wrote {path} ({n_par} paragraphs, {n_q} questions)")


if __name__ == "__main__":
    main()

"""The catalogue's words, read from the database for `pricing` (which takes them as plain data):
each item by its name and its aliases, the accessory words, and the other names of suppliers.
Read whole in one query each time it is asked for, never cached, so an alias added in the admin
counts in every process at once. The chat reads the same rows in its turn's catalogue query
(procurement.chat.vocabulary)."""
from django.db.models import CharField, IntegerField, Value

from procurement.models import AccessoryWord, CatalogueItem, ItemAlias, SupplierAlias
from procurement.purchase.pricing import Vocabulary

ITEM, ALIAS, ACCESSORY, SUPPLIER = "item", "alias", "accessory", "supplier"

# The words a new database starts with (migration 0021 seeds the same); the demo and the tests
# that have no database use them too.
STARTING_ITEMS = {
    "Laptop": ("computers", ["laptop", "notebook", "notebook computer", "筆電", "筆記型電腦", "笔记本电脑"]),
    "Monitor": ("computers", ["monitor", "screen", "display", "螢幕", "顯示器", "显示器"]),
    "Keyboard": ("computers", ["keyboard", "鍵盤", "键盘"]),
    "USB-C dock": ("computers", ["usb-c dock", "usb c dock", "usbc dock", "dock", "docking station", "擴充座",
                                 "擴充基座"]),
    "Office chair": ("furniture", ["office chair", "chair", "desk chair", "ergonomic chair", "椅子", "辦公椅",
                                   "電腦椅", "人體工學椅", "工學椅", "辦公室椅子"]),
}
STARTING_ACCESSORIES = ["arm", "stand", "bag", "case", "cover", "protector", "mat", "sleeve", "charger", "adapter",
                        "cable", "cushion", "mount", "riser", "lock", "wrist rest", "保護貼", "支架", "電腦包", "筆電包",
                        "充電器", "傳輸線", "鍵盤膜", "椅墊"]


def starting_vocabulary() -> Vocabulary:
    return Vocabulary({name: tuple(words) for name, (_category, words) in STARTING_ITEMS.items()},
                      tuple(STARTING_ACCESSORIES))


def seed_words() -> None:
    """The starting words, in a database that has no catalogue items (a flushed test database)."""
    if CatalogueItem.objects.exists():
        return
    for name, (category, words) in STARTING_ITEMS.items():
        item = CatalogueItem.objects.create(name=name, category=category)
        ItemAlias.objects.bulk_create(ItemAlias(item=item, words=word, language=language_of(word)) for word in words)
    AccessoryWord.objects.bulk_create((AccessoryWord(words=word, language=language_of(word))
                                       for word in STARTING_ACCESSORIES), ignore_conflicts=True)


def language_of(words: str) -> str:
    return "en" if words.isascii() else "zh"


def _text(value: str) -> Value:
    return Value(value, output_field=CharField())


def word_rows(*also):
    """(kind, name, words, order) rows of every table of words, and of the querysets `also` (of
    the same four columns), as one query (a union). Items keep the order they were added in: of
    two words as long, the older item's wins (`match_item`)."""
    none = Value(0, output_field=IntegerField())
    first, *rest = [CatalogueItem.objects.values_list(_text(ITEM), "name", _text(""), "pk"),
                    ItemAlias.objects.values_list(_text(ALIAS), "item__name", "words", "item_id"),
                    AccessoryWord.objects.values_list(_text(ACCESSORY), _text(""), "words", none),
                    SupplierAlias.objects.values_list(_text(SUPPLIER), "supplier__name", "words", none), *also]
    return first.order_by().union(*(queryset.order_by() for queryset in rest), all=True)


def vocabulary_of(rows) -> Vocabulary:
    """The Vocabulary of (kind, name, words, order) rows (of `word_rows`; other kinds are skipped)."""
    items, accessories, suppliers = {}, [], {}
    for kind, name, words, _order in sorted(rows, key=lambda row: (row[3], row[0] != ITEM)):
        if kind == ITEM:
            items.setdefault(name, [])
        elif kind == ALIAS:
            items.setdefault(name, []).append(words)
        elif kind == ACCESSORY:
            accessories.append(words)
        elif kind == SUPPLIER:
            suppliers.setdefault(name, []).append(words)
    return Vocabulary({name: tuple(sorted(words)) for name, words in items.items()},
                      tuple(sorted(accessories)), {name: tuple(sorted(w)) for name, w in sorted(suppliers.items())})


def vocabulary() -> Vocabulary:
    """The catalogue's words as the database has them now (one query)."""
    return vocabulary_of(word_rows())

"""The pit page's words in English, French and Ukrainian (one catalogue).

A key missing in a language falls back to English; :func:`lang_of` picks the language
from what the browser asks for.
"""

from __future__ import annotations

LANGS = ("en", "fr", "uk")
"""The pit page's languages."""

TEXT: dict[str, dict[str, str]] = {
    "en": {
        "title": "Pit", "login": "Log in", "pin": "Pit PIN", "wrong_pin": "Wrong PIN.",
        "locked": "PIN entry is locked for {s} s.", "logout": "Log out",
        "table": "Table", "status": "Status", "last_round": "Last round", "ended": "Ended",
        "per_hour": "Rounds / h", "drop": "Drop", "hold": "Hold", "par_hold": "Par hold",
        "alarms": "Open alarms", "lacking": "Rounds lacking", "profile": "Profile",
        "none": "none", "never": "never", "ago": "{t} ago", "recorder": "Recorder",
        "st.online": "online", "st.offline": "offline", "st.stopped": "stopped",
        "st.unknown": "unknown", "rec.running": "running", "rec.stopped": "stopped",
        "rec.silent": "silent", "rec.unknown": "never heard",
        "rec.broker_lost": "cannot reach the broker since {t}",
        "no_tables": "No table heard yet.", "back": "All tables",
        "rounds": "Last rounds", "meters": "Meters", "alarm_log": "Alarms",
        "round": "Round", "dealer": "Dealer", "seat": "Seat", "cards": "Cards",
        "bets": "Bets", "decision": "Decision", "net": "Net", "void": "void",
        "settled": "settled", "meter": "Meter", "wagered": "Wagered", "paid": "Paid",
        "won": "Won", "voids": "Voids", "refunded": "Refunded", "severity": "Severity",
        "message": "Message", "kind": "Kind", "provisional": "provisional",
        "unconfirmed": "may be on their way", "amounts": "Amounts in {c}",
        "minor": "minor units", "updated": "Updated {t}", "live": "live",
        "stale": "reconnecting", "forged": "Refused as forged: {n}",
        "heard": "Heard", "play": "play", "fold": "fold", "no_rounds": "No round yet.",
        "n_rounds": "Rounds", "total": "Total",
        "bet.ante": "Ante", "bet.play": "Play", "bet.ante_bonus": "Ante Bonus",
        "bet.pair_plus": "Pair Plus", "bet.six_card_bonus": "6 Card Bonus",
        "unit.s": "s", "unit.min": "min", "unit.h": "h", "unit.d": "d",
        "hand.high_card": "High card", "hand.pair": "Pair", "hand.flush": "Flush",
        "hand.straight": "Straight", "hand.three_of_a_kind": "Three of a kind",
        "hand.straight_flush": "Straight flush", "hand.mini_royal": "Mini royal",
        "qualifies": "Dealer qualifies", "not_qualify": "Dealer does not qualify",
    },
    "fr": {
        "title": "Pit", "login": "Connexion", "pin": "Code du pit",
        "wrong_pin": "Code erroné.", "locked": "Saisie du code bloquée pendant {s} s.",
        "logout": "Déconnexion", "table": "Table", "status": "État",
        "last_round": "Dernière partie", "ended": "Terminée", "per_hour": "Parties / h",
        "drop": "Mises", "hold": "Hold", "par_hold": "Hold théorique",
        "alarms": "Alarmes ouvertes", "lacking": "Parties manquantes", "profile": "Profil",
        "none": "aucune", "never": "jamais", "ago": "il y a {t}", "recorder": "Enregistreur",
        "st.online": "en ligne", "st.offline": "hors ligne", "st.stopped": "arrêtée",
        "st.unknown": "inconnu", "rec.running": "en marche", "rec.stopped": "arrêté",
        "rec.silent": "muet", "rec.unknown": "jamais entendu",
        "rec.broker_lost": "ne joint plus le broker depuis {t}",
        "no_tables": "Aucune table entendue.", "back": "Toutes les tables",
        "rounds": "Dernières parties", "meters": "Compteurs", "alarm_log": "Alarmes",
        "round": "Partie", "dealer": "Croupier", "seat": "Place", "cards": "Cartes",
        "bets": "Mises", "decision": "Décision", "net": "Net", "void": "annulée",
        "settled": "réglée", "meter": "Compteur", "wagered": "Misé", "paid": "Payé",
        "won": "Gagné", "voids": "Annulations", "refunded": "Remboursé",
        "severity": "Gravité", "message": "Message", "kind": "Type",
        "provisional": "provisoire", "unconfirmed": "peut-être en route",
        "amounts": "Montants en {c}", "minor": "unités mineures", "updated": "Mis à jour {t}",
        "live": "en direct", "stale": "reconnexion", "forged": "Refusés comme falsifiés : {n}",
        "heard": "Entendue", "play": "joue", "fold": "se couche",
        "no_rounds": "Aucune partie.", "n_rounds": "Parties", "total": "Total",
        "bet.ante": "Ante", "bet.play": "Jeu", "bet.ante_bonus": "Bonus Ante",
        "bet.pair_plus": "Paire Plus", "bet.six_card_bonus": "Bonus 6 cartes",
        "unit.s": "s", "unit.min": "min", "unit.h": "h", "unit.d": "j",
        "hand.high_card": "Carte haute", "hand.pair": "Paire", "hand.flush": "Couleur",
        "hand.straight": "Suite", "hand.three_of_a_kind": "Brelan",
        "hand.straight_flush": "Quinte couleur", "hand.mini_royal": "Mini royale",
        "qualifies": "Le croupier se qualifie", "not_qualify": "Le croupier ne se qualifie pas",
    },
    "uk": {
        "title": "Піт", "login": "Увійти", "pin": "PIN піта", "wrong_pin": "Невірний PIN.",
        "locked": "Введення PIN заблоковано на {s} с.", "logout": "Вийти",
        "table": "Стіл", "status": "Стан", "last_round": "Остання гра",
        "ended": "Завершено", "per_hour": "Ігор / год", "drop": "Ставки", "hold": "Утримання",
        "par_hold": "Теор. утримання", "alarms": "Відкриті тривоги",
        "lacking": "Бракує ігор", "profile": "Профіль", "none": "немає", "never": "ніколи",
        "ago": "{t} тому", "recorder": "Реєстратор", "st.online": "у мережі",
        "st.offline": "поза мережею", "st.stopped": "зупинено", "st.unknown": "невідомо",
        "rec.running": "працює", "rec.stopped": "зупинено", "rec.silent": "мовчить",
        "rec.unknown": "не чути", "rec.broker_lost": "немає зв'язку з брокером з {t}",
        "no_tables": "Жодного столу ще не чути.", "back": "Усі столи",
        "rounds": "Останні ігри", "meters": "Лічильники", "alarm_log": "Тривоги",
        "round": "Гра", "dealer": "Дилер", "seat": "Місце", "cards": "Карти",
        "bets": "Ставки", "decision": "Рішення", "net": "Нетто", "void": "анульовано",
        "settled": "розраховано", "meter": "Лічильник", "wagered": "Поставлено",
        "paid": "Виплачено", "won": "Виграно", "voids": "Анулювання",
        "refunded": "Повернено", "severity": "Рівень", "message": "Повідомлення",
        "kind": "Тип", "provisional": "попередньо", "unconfirmed": "можливо, в дорозі",
        "amounts": "Суми в {c}", "minor": "мінорних одиницях", "updated": "Оновлено {t}",
        "live": "наживо", "stale": "перепідключення",
        "forged": "Відхилено як підробку: {n}", "heard": "Чути", "play": "грає",
        "fold": "пас", "no_rounds": "Ще немає ігор.", "n_rounds": "Ігор", "total": "Разом",
        "bet.ante": "Анте", "bet.play": "Гра", "bet.ante_bonus": "Анте бонус",
        "bet.pair_plus": "Пара Плюс", "bet.six_card_bonus": "Бонус 6 карт",
        "unit.s": "с", "unit.min": "хв", "unit.h": "год", "unit.d": "дн",
        "hand.high_card": "Старша карта", "hand.pair": "Пара", "hand.flush": "Флеш",
        "hand.straight": "Стріт", "hand.three_of_a_kind": "Трійка",
        "hand.straight_flush": "Стріт-флеш", "hand.mini_royal": "Міні-роял",
        "qualifies": "У дилера є гра", "not_qualify": "У дилера немає гри",
    },
}


def text(lang: str, key: str, **values: object) -> str:
    """The words of ``key`` in ``lang`` (English when it has none), values filled in."""
    words = TEXT.get(lang, TEXT["en"]).get(key) or TEXT["en"].get(key, key)
    return words.format(**values) if values else words


def lang_of(asked: str | None, accept: str | None, default: str = "en") -> str:
    """The language to show: ``asked`` (a query or cookie), else the browser's first.

    Args:
        asked: a language code the user chose, or None.
        accept: the ``Accept-Language`` header, or None.
        default: the language when neither names one of :data:`LANGS`.
    """
    if asked in LANGS:
        return asked
    for part in (accept or "").split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in LANGS:
            return code
    return default

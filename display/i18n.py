"""Screen labels in English, French and Ukrainian (the rule documents' languages).

The language is chosen in the configuration (``lang``). Every label is looked up by a
stable key; a key missing in French or Ukrainian falls back to English, and a key missing
everywhere shows the key itself (never a crash on a live table). Banner texts are
translated by the banner's ``kind``; the controller's English text is the fallback.
"""

from __future__ import annotations

import string
from collections.abc import Mapping

LANGUAGES = ("en", "fr", "uk")
"""Language codes the screens support."""

_EN: dict[str, str] = {
    # round states
    "state.betting": "Bets open",
    "state.no_more_bets": "No more bets",
    "state.dealing": "Dealing",
    "state.deciding": "Decisions",
    "state.reveal": "Reveal",
    "state.settled": "Settled",
    "state.paused": "Paused",
    "state.void": "Round void",
    "state.locked": "Locked",
    "state.in_progress": "In progress",
    # next actions (dealer)
    "next.place_bets": "Place bets, then press No more bets",
    "next.no_more_bets": "Press No more bets",
    "next.deal": "Deal the cards from the shoe",
    "next.decide": "Record each seat: Play or Fold",
    "next.reveal": "Turn the dealer's cards",
    "next.settle": "Settle the bets",
    "next.next_round": "Collect cards, then open the next round",
    "next.resolve": "Resolve the alarm shown below",
    "next.supervisor": "Call a supervisor",
    "next.locked": "Table locked: call a technician",
    # link states
    "link.connecting": "Shoe connecting",
    "link.online": "Shoe online",
    "link.silent": "Shoe silent",
    "link.disconnected": "Shoe disconnected",
    # bets and outcomes
    "bet.ante": "Ante",
    "bet.play": "Play",
    "bet.ante_bonus": "Ante Bonus",
    "bet.pair_plus": "Pair Plus",
    "bet.six_card_bonus": "6 Card Bonus",
    "bet.ante_play": "Ante / Play",
    "short.ante": "A",
    "short.play": "P",
    "short.pair_plus": "PP",
    "short.six_card_bonus": "6CB",
    "outcome.win": "win",
    "outcome.lose": "lose",
    "outcome.push": "push",
    "outcome.refund": "refund",
    "pay.win": "PAY",
    "pay.lose": "TAKE",
    "pay.push": "RETURN",
    "pay.refund": "REFUND",
    # 3-card hands
    "hand.high_card": "High card",
    "hand.pair": "Pair",
    "hand.flush": "Flush",
    "hand.straight": "Straight",
    "hand.three_of_a_kind": "Three of a kind",
    "hand.straight_flush": "Straight flush",
    "hand.mini_royal": "Mini royal",
    # 6-card hands
    "hand.royal_flush": "Royal flush",
    "hand.four_of_a_kind": "Four of a kind",
    "hand.full_house": "Full house",
    "hand.two_pair": "Two pair",
    # words
    "word.table": "Table",
    "word.round": "Round",
    "word.seat": "Seat",
    "word.seat_n": "Seat {seat}",
    "word.dealer": "Dealer",
    "word.total": "Total",
    "word.min": "min",
    "word.max": "max",
    "word.to_one": "{x} to 1",
    "word.folded": "Folded",
    "word.played": "Played",
    "word.empty_seat": "open",
    "word.net": "Net",
    "word.void": "VOID",
    "word.manual": "manual",
    "word.misread": "misread",
    "word.burn": "burn",
    "word.waiting": "waiting",
    # next card
    "card.next": "Next card",
    "card.seat": "Seat {seat}, card {n}",
    "card.dealer": "Dealer, card {n}",
    "card.burn": "Burn card",
    "card.none": "No card due",
    # dealer outcome
    "dealer.qualifies": "Dealer qualifies",
    "dealer.not_qualify": "Dealer does not qualify",
    "dealer.qualifier": "Dealer qualifies with {q}",
    # buttons
    "btn.no_more_bets": "No more bets",
    "btn.reveal": "Reveal",
    "btn.settle": "Settle",
    "btn.next_round": "Next round",
    "btn.resume": "Resume",
    "btn.new_deck": "New deck",
    "btn.void": "Void round",
    "btn.manual_card": "Manual card",
    "btn.unblock_deck": "Unblock deck",
    "btn.recall": "Recall",
    "btn.meters": "Meters",
    "btn.back": "Back",
    "btn.play": "Play",
    "btn.fold": "Fold",
    "btn.rebet": "Rebet",
    "btn.rebet_all": "Rebet all",
    "btn.clear": "Clear",
    "btn.ok": "OK",
    "btn.cancel": "Cancel",
    "btn.del": "Del",
    "btn.older": "Older",
    "btn.newer": "Newer",
    # pads
    "pad.pin_title": "Supervisor PIN: {action}",
    "pad.card_title": "Enter the card by hand",
    "pad.reason_title": "Why is the round void?",
    "pad.pin_hint": "Type the PIN, then OK",
    "pad.card_hint": "Choose rank and suit, then OK",
    "reason.card_before_no_more_bets": "Card before no more bets",
    "reason.wrong_count": "Wrong number of cards",
    "reason.dealer_exposed": "Dealer cards exposed",
    "reason.misread_unresolved": "Misread not resolved",
    "reason.shoe_fault": "Shoe fault",
    "reason.other": "Other irregularity",
    "reason.duplicate_card": "Duplicate card cleared",
    # screens
    "screen.recall": "RECALL",
    "screen.recall_round": "RECALL  Round {round} of the last {count}",
    "screen.meters": "Meters",
    "screen.payouts": "Payouts in pay order",
    "screen.refunds": "Refunds",
    "meter.name": "Meter",
    "meter.wagered": "Wagered",
    "meter.paid": "Paid",
    "meter.won": "Won",
    "meter.net": "House net",
    "meter.rounds": "Rounds",
    "recall.started": "Started {time} UTC",
    "recall.deal": "Deal order",
    "abbr.seat": "S",
    "abbr.dealer": "D",
    "abbr.burn": "B",
    "recall.void_reason": "Void: {reason}",
    "recall.decision": "Decision",
    "recall.bets": "Bets",
    # player screen
    "player.paytables": "Paytables",
    "player.limits": "Table limits",
    "player.rtp": "Return to player",
    "player.recent": "Recent results",
    "player.place_bets": "Place your bets",
    "player.no_more_bets": "No more bets",
    "player.good_luck": "Good luck",
    "player.decide": "Play or fold?",
    "player.wait_reveal": "Dealer reveals",
    "player.paused": "Round paused",
    "player.rules": "Dealer qualifies with {q} or better",
    # banners: message / action by kind
    "banner.link_lost.msg": "Shoe link lost",
    "banner.link_lost.act": "Check the shoe cable; the round waits",
    "banner.link_lost.player": "Shoe link lost: the round waits",
    "banner.link_silent.msg": "Shoe silent",
    "banner.link_silent.act": "Check the shoe; the round waits",
    "banner.no_frame.msg": "No frame decoded from {bytes} bytes: is the dialect right?",
    "banner.no_frame.act": "Technician: check the shoe's dialect (and baud rate)",
    "banner.misread.msg": "Shoe misread a card",
    "banner.misread.act": "Re-present the card or enter it by hand (supervisor)",
    "banner.seq_gap.msg": "Shoe message lost",
    "banner.seq_gap.act": "Check the cards dealt; call a supervisor if in doubt",
    "banner.void.msg": "Round void: every bet is returned",
    "banner.void.act": "Return every wager, then open the next round",
    "banner.void.player": "Round void: all bets returned",
    "banner.duplicate_card.msg": "Card {card} seen twice in this deck",
    "banner.duplicate_card.act": "Round void, deck blocked: supervisor must unblock",
    "banner.unknown_card.msg": "Unknown card read",
    "banner.unknown_card.act": "Round void, deck blocked: supervisor must unblock",
    "banner.deck_blocked.msg": "Deck blocked",
    "banner.deck_blocked.act": "Supervisor: check the deck, then Unblock deck",
    "banner.wrong_count.msg": "Wrong number of cards",
    "banner.wrong_count.act": "Void the round (supervisor)",
    "banner.card_before_no_more_bets.msg": "Card read before no more bets",
    "banner.card_before_no_more_bets.act": "Void the round (supervisor)",
    "banner.alarm.msg": "Shoe alarm",
    "banner.alarm.act": "Check the shoe, then Resume",
    "banner.lid_open.msg": "Shoe lid open",
    "banner.lid_open.act": "Close the shoe lid",
    "banner.cut_card.msg": "Cut card reached",
    "banner.cut_card.act": "Load a new deck after this round",
    "banner.shoe_empty.msg": "Shoe empty",
    "banner.shoe_empty.act": "Load a new deck",
    "banner.exposed_card.msg": "Card exposed",
    "banner.exposed_card.act": "Burn it and continue, or void (supervisor)",
    "banner.interrupted_round.msg": "Round interrupted",
    "banner.interrupted_round.act": "Resume if the record is complete, else void",
    "banner.journal_locked.msg": "Journal unavailable",
    "banner.journal_locked.act": "Stop play and call a technician",
    "banner.rejected.msg": "Action refused",
    "banner.rejected.act": "Read the reason and try again",
}

_FR: dict[str, str] = {
    "state.betting": "Faites vos jeux",
    "state.no_more_bets": "Rien ne va plus",
    "state.dealing": "Distribution",
    "state.deciding": "Décisions",
    "state.reveal": "Révélation",
    "state.settled": "Paiement fait",
    "state.paused": "En pause",
    "state.void": "Coup annulé",
    "state.locked": "Verrouillée",
    "state.in_progress": "En cours",
    "next.place_bets": "Prenez les mises, puis Rien ne va plus",
    "next.no_more_bets": "Appuyez sur Rien ne va plus",
    "next.deal": "Distribuez les cartes du sabot",
    "next.decide": "Chaque place : Jouer ou Passer",
    "next.reveal": "Retournez les cartes du croupier",
    "next.settle": "Réglez les mises",
    "next.next_round": "Ramassez, puis ouvrez le coup suivant",
    "next.resolve": "Traitez l'alarme ci-dessous",
    "next.supervisor": "Appelez un superviseur",
    "next.locked": "Table verrouillée : appelez un technicien",
    "link.connecting": "Sabot : connexion",
    "link.online": "Sabot connecté",
    "link.silent": "Sabot muet",
    "link.disconnected": "Sabot déconnecté",
    "bet.ante": "Ante",
    "bet.play": "Play",
    "bet.ante_bonus": "Bonus Ante",
    "bet.pair_plus": "Paire Plus",
    "bet.six_card_bonus": "Bonus 6 cartes",
    "bet.ante_play": "Ante / Play",
    "short.ante": "A",
    "short.play": "J",
    "short.pair_plus": "PP",
    "short.six_card_bonus": "B6",
    "outcome.win": "gagne",
    "outcome.lose": "perd",
    "outcome.push": "égalité",
    "outcome.refund": "remboursé",
    "pay.win": "PAYER",
    "pay.lose": "RAMASSER",
    "pay.push": "RENDRE",
    "pay.refund": "REMBOURSER",
    "hand.high_card": "Carte haute",
    "hand.pair": "Paire",
    "hand.flush": "Couleur",
    "hand.straight": "Suite",
    "hand.three_of_a_kind": "Brelan",
    "hand.straight_flush": "Quinte couleur",
    "hand.mini_royal": "Mini royale",
    "hand.royal_flush": "Quinte flush royale",
    "hand.four_of_a_kind": "Carré",
    "hand.full_house": "Full",
    "hand.two_pair": "Deux paires",
    "word.table": "Table",
    "word.round": "Coup",
    "word.seat": "Place",
    "word.seat_n": "Place {seat}",
    "word.dealer": "Croupier",
    "word.total": "Total",
    "word.min": "min",
    "word.max": "max",
    "word.to_one": "{x} pour 1",
    "word.folded": "Passé",
    "word.played": "Joué",
    "word.empty_seat": "libre",
    "word.net": "Net",
    "word.void": "ANNULÉ",
    "word.manual": "manuelle",
    "word.misread": "mal lue",
    "word.burn": "brûlée",
    "word.waiting": "en attente",
    "card.next": "Carte suivante",
    "card.seat": "Place {seat}, carte {n}",
    "card.dealer": "Croupier, carte {n}",
    "card.burn": "Carte brûlée",
    "card.none": "Aucune carte attendue",
    "dealer.qualifies": "Le croupier se qualifie",
    "dealer.not_qualify": "Le croupier ne se qualifie pas",
    "dealer.qualifier": "Le croupier se qualifie avec {q}",
    "btn.no_more_bets": "Rien ne va plus",
    "btn.reveal": "Révéler",
    "btn.settle": "Régler",
    "btn.next_round": "Coup suivant",
    "btn.resume": "Reprendre",
    "btn.new_deck": "Nouveau jeu",
    "btn.void": "Annuler le coup",
    "btn.manual_card": "Carte manuelle",
    "btn.unblock_deck": "Débloquer le jeu",
    "btn.recall": "Historique",
    "btn.meters": "Compteurs",
    "btn.back": "Retour",
    "btn.play": "Jouer",
    "btn.fold": "Passer",
    "btn.rebet": "Remiser",
    "btn.rebet_all": "Tout remiser",
    "btn.clear": "Effacer",
    "btn.ok": "OK",
    "btn.cancel": "Annuler",
    "btn.del": "Eff.",
    "btn.older": "Plus ancien",
    "btn.newer": "Plus récent",
    "pad.pin_title": "Code superviseur : {action}",
    "pad.card_title": "Saisir la carte à la main",
    "pad.reason_title": "Pourquoi annuler le coup ?",
    "pad.pin_hint": "Tapez le code, puis OK",
    "pad.card_hint": "Choisissez valeur et couleur, puis OK",
    "reason.card_before_no_more_bets": "Carte avant rien ne va plus",
    "reason.wrong_count": "Mauvais nombre de cartes",
    "reason.dealer_exposed": "Cartes du croupier exposées",
    "reason.misread_unresolved": "Carte mal lue non résolue",
    "reason.shoe_fault": "Panne du sabot",
    "reason.other": "Autre irrégularité",
    "reason.duplicate_card": "Carte en double levée",
    "screen.recall": "HISTORIQUE",
    "screen.recall_round": "HISTORIQUE  Coup {round} des {count} derniers",
    "screen.meters": "Compteurs",
    "screen.payouts": "Paiements dans l'ordre",
    "screen.refunds": "Remboursements",
    "meter.name": "Compteur",
    "meter.wagered": "Misé",
    "meter.paid": "Payé",
    "meter.won": "Gagné",
    "meter.net": "Net maison",
    "meter.rounds": "Coups",
    "recall.started": "Début {time} UTC",
    "recall.deal": "Ordre de donne",
    "abbr.seat": "P",
    "abbr.dealer": "C",
    "abbr.burn": "B",
    "recall.void_reason": "Annulé : {reason}",
    "recall.decision": "Décision",
    "recall.bets": "Mises",
    "player.paytables": "Tables de paiement",
    "player.limits": "Limites de la table",
    "player.rtp": "Retour au joueur",
    "player.recent": "Derniers résultats",
    "player.place_bets": "Faites vos jeux",
    "player.no_more_bets": "Rien ne va plus",
    "player.good_luck": "Bonne chance",
    "player.decide": "Jouer ou passer ?",
    "player.wait_reveal": "Le croupier dévoile",
    "player.paused": "Coup en pause",
    "player.rules": "Le croupier se qualifie avec {q} ou mieux",
    "banner.link_lost.msg": "Liaison sabot perdue",
    "banner.link_lost.act": "Vérifiez le câble du sabot ; le coup attend",
    "banner.link_lost.player": "Liaison sabot perdue : le coup attend",
    "banner.link_silent.msg": "Sabot muet",
    "banner.link_silent.act": "Vérifiez le sabot ; le coup attend",
    "banner.no_frame.msg": "Aucune trame décodée sur {bytes} octets : le dialecte est-il le bon ?",
    "banner.no_frame.act": "Technicien : vérifiez le dialecte (et le débit) du sabot",
    "banner.misread.msg": "Carte mal lue par le sabot",
    "banner.misread.act": "Représentez la carte ou saisissez-la (superviseur)",
    "banner.seq_gap.msg": "Message du sabot perdu",
    "banner.seq_gap.act": "Vérifiez les cartes ; superviseur en cas de doute",
    "banner.void.msg": "Coup annulé : toutes les mises sont rendues",
    "banner.void.act": "Rendez chaque mise, puis ouvrez le coup suivant",
    "banner.void.player": "Coup annulé : toutes les mises rendues",
    "banner.duplicate_card.msg": "Carte {card} vue deux fois dans ce jeu",
    "banner.duplicate_card.act": "Coup annulé, jeu bloqué : déblocage superviseur",
    "banner.unknown_card.msg": "Carte inconnue lue",
    "banner.unknown_card.act": "Coup annulé, jeu bloqué : déblocage superviseur",
    "banner.deck_blocked.msg": "Jeu bloqué",
    "banner.deck_blocked.act": "Superviseur : vérifiez le jeu, puis Débloquer",
    "banner.wrong_count.msg": "Mauvais nombre de cartes",
    "banner.wrong_count.act": "Annulez le coup (superviseur)",
    "banner.card_before_no_more_bets.msg": "Carte lue avant rien ne va plus",
    "banner.card_before_no_more_bets.act": "Annulez le coup (superviseur)",
    "banner.alarm.msg": "Alarme du sabot",
    "banner.alarm.act": "Vérifiez le sabot, puis Reprendre",
    "banner.lid_open.msg": "Couvercle du sabot ouvert",
    "banner.lid_open.act": "Fermez le couvercle du sabot",
    "banner.cut_card.msg": "Carte de coupe atteinte",
    "banner.cut_card.act": "Nouveau jeu après ce coup",
    "banner.shoe_empty.msg": "Sabot vide",
    "banner.shoe_empty.act": "Chargez un nouveau jeu",
    "banner.exposed_card.msg": "Carte exposée",
    "banner.exposed_card.act": "Brûlez-la et continuez, ou annulez (superviseur)",
    "banner.interrupted_round.msg": "Coup interrompu",
    "banner.interrupted_round.act": "Reprenez si l'enregistrement est complet, sinon annulez",
    "banner.journal_locked.msg": "Journal indisponible",
    "banner.journal_locked.act": "Arrêtez le jeu et appelez un technicien",
    "banner.rejected.msg": "Action refusée",
    "banner.rejected.act": "Lisez la raison et réessayez",
}

_UK: dict[str, str] = {
    "state.betting": "Ставки відкрито",
    "state.no_more_bets": "Ставок більше немає",
    "state.dealing": "Роздача",
    "state.deciding": "Рішення",
    "state.reveal": "Відкриття",
    "state.settled": "Розраховано",
    "state.paused": "Пауза",
    "state.void": "Гру анульовано",
    "state.locked": "Заблоковано",
    "state.in_progress": "Триває",
    "next.place_bets": "Прийміть ставки, потім «Ставок більше немає»",
    "next.no_more_bets": "Натисніть «Ставок більше немає»",
    "next.deal": "Роздайте карти з шуза",
    "next.decide": "Для кожного місця: Гра або Пас",
    "next.reveal": "Відкрийте карти дилера",
    "next.settle": "Розрахуйте ставки",
    "next.next_round": "Зберіть карти і відкрийте нову гру",
    "next.resolve": "Усуньте тривогу, показану нижче",
    "next.supervisor": "Викличте супервайзера",
    "next.locked": "Стіл заблоковано: викличте техніка",
    "link.connecting": "Шуз: з'єднання",
    "link.online": "Шуз на зв'язку",
    "link.silent": "Шуз мовчить",
    "link.disconnected": "Шуз від'єднано",
    "bet.ante": "Анте",
    "bet.play": "Гра",
    "bet.ante_bonus": "Анте бонус",
    "bet.pair_plus": "Пара Плюс",
    "bet.six_card_bonus": "Бонус 6 карт",
    "bet.ante_play": "Анте / Гра",
    "short.ante": "А",
    "short.play": "Г",
    "short.pair_plus": "ПП",
    "short.six_card_bonus": "Б6",
    "outcome.win": "виграш",
    "outcome.lose": "програш",
    "outcome.push": "нічия",
    "outcome.refund": "повернення",
    "pay.win": "ВИПЛАТА",
    "pay.lose": "ЗАБРАТИ",
    "pay.push": "ПОВЕРНУТИ",
    "pay.refund": "ПОВЕРНУТИ",
    "hand.high_card": "Старша карта",
    "hand.pair": "Пара",
    "hand.flush": "Флеш",
    "hand.straight": "Стріт",
    "hand.three_of_a_kind": "Трійка",
    "hand.straight_flush": "Стріт-флеш",
    "hand.mini_royal": "Міні-роял",
    "hand.royal_flush": "Роял-флеш",
    "hand.four_of_a_kind": "Каре",
    "hand.full_house": "Фул-хаус",
    "hand.two_pair": "Дві пари",
    "word.table": "Стіл",
    "word.round": "Гра",
    "word.seat": "Місце",
    "word.seat_n": "Місце {seat}",
    "word.dealer": "Дилер",
    "word.total": "Разом",
    "word.min": "мін",
    "word.max": "макс",
    "word.to_one": "{x} до 1",
    "word.folded": "Пас",
    "word.played": "Гра",
    "word.empty_seat": "вільне",
    "word.net": "Підсумок",
    "word.void": "АНУЛЬОВАНО",
    "word.manual": "вручну",
    "word.misread": "не прочитано",
    "word.burn": "скид",
    "word.waiting": "очікування",
    "card.next": "Наступна карта",
    "card.seat": "Місце {seat}, карта {n}",
    "card.dealer": "Дилер, карта {n}",
    "card.burn": "Карта у скид",
    "card.none": "Карта не очікується",
    "dealer.qualifies": "У дилера є гра",
    "dealer.not_qualify": "У дилера немає гри",
    "dealer.qualifier": "Дилер грає з {q}",
    "btn.no_more_bets": "Ставок більше немає",
    "btn.reveal": "Відкрити",
    "btn.settle": "Розрахувати",
    "btn.next_round": "Нова гра",
    "btn.resume": "Продовжити",
    "btn.new_deck": "Нова колода",
    "btn.void": "Анулювати гру",
    "btn.manual_card": "Карта вручну",
    "btn.unblock_deck": "Розблокувати колоду",
    "btn.recall": "Історія",
    "btn.meters": "Лічильники",
    "btn.back": "Назад",
    "btn.play": "Гра",
    "btn.fold": "Пас",
    "btn.rebet": "Повтор",
    "btn.rebet_all": "Повторити всі",
    "btn.clear": "Очистити",
    "btn.ok": "OK",
    "btn.cancel": "Скасувати",
    "btn.del": "Стер.",
    "btn.older": "Старіші",
    "btn.newer": "Новіші",
    "pad.pin_title": "PIN супервайзера: {action}",
    "pad.card_title": "Введіть карту вручну",
    "pad.reason_title": "Чому гру анульовано?",
    "pad.pin_hint": "Введіть PIN, потім OK",
    "pad.card_hint": "Оберіть значення і масть, потім OK",
    "reason.card_before_no_more_bets": "Карта до «ставок більше немає»",
    "reason.wrong_count": "Неправильна кількість карт",
    "reason.dealer_exposed": "Карти дилера відкрито",
    "reason.misread_unresolved": "Карту не прочитано",
    "reason.shoe_fault": "Несправність шуза",
    "reason.other": "Інше порушення",
    "reason.duplicate_card": "Дубль карти усунено",
    "screen.recall": "ІСТОРІЯ ІГОР",
    "screen.recall_round": "ІСТОРІЯ  Гра {round} з останніх {count}",
    "screen.meters": "Лічильники",
    "screen.payouts": "Виплати по черзі",
    "screen.refunds": "Повернення",
    "meter.name": "Лічильник",
    "meter.wagered": "Поставлено",
    "meter.paid": "Виплачено",
    "meter.won": "Виграно",
    "meter.net": "Казино нетто",
    "meter.rounds": "Ігор",
    "recall.started": "Початок {time} UTC",
    "recall.deal": "Порядок роздачі",
    "abbr.seat": "М",
    "abbr.dealer": "Д",
    "abbr.burn": "С",
    "recall.void_reason": "Анульовано: {reason}",
    "recall.decision": "Рішення",
    "recall.bets": "Ставки",
    "player.paytables": "Таблиці виплат",
    "player.limits": "Ліміти столу",
    "player.rtp": "Повернення гравцю",
    "player.recent": "Останні результати",
    "player.place_bets": "Робіть ставки",
    "player.no_more_bets": "Ставок більше немає",
    "player.good_luck": "Успіху!",
    "player.decide": "Гра чи пас?",
    "player.wait_reveal": "Дилер відкриває карти",
    "player.paused": "Гру призупинено",
    "player.rules": "Дилер грає зі старшою {q} або краще",
    "banner.link_lost.msg": "Зв'язок із шузом втрачено",
    "banner.link_lost.act": "Перевірте кабель шуза; гра чекає",
    "banner.link_lost.player": "Зв'язок із шузом втрачено: гра чекає",
    "banner.link_silent.msg": "Шуз мовчить",
    "banner.link_silent.act": "Перевірте шуз; гра чекає",
    "banner.no_frame.msg": "Із {bytes} байтів не розпізнано жодного кадру: чи правильний діалект?",
    "banner.no_frame.act": "Технік: перевірте діалект (і швидкість) шуза",
    "banner.misread.msg": "Шуз не прочитав карту",
    "banner.misread.act": "Покажіть карту ще раз або введіть вручну (супервайзер)",
    "banner.seq_gap.msg": "Втрачено повідомлення шуза",
    "banner.seq_gap.act": "Перевірте карти; за сумнівів кличте супервайзера",
    "banner.void.msg": "Гру анульовано: усі ставки повертаються",
    "banner.void.act": "Поверніть кожну ставку і відкрийте нову гру",
    "banner.void.player": "Гру анульовано: усі ставки повернуто",
    "banner.duplicate_card.msg": "Карта {card} двічі в колоді",
    "banner.duplicate_card.act": "Гру анульовано, колоду заблоковано: супервайзер",
    "banner.unknown_card.msg": "Прочитано невідому карту",
    "banner.unknown_card.act": "Гру анульовано, колоду заблоковано: супервайзер",
    "banner.deck_blocked.msg": "Колоду заблоковано",
    "banner.deck_blocked.act": "Супервайзер: перевірте колоду і розблокуйте",
    "banner.wrong_count.msg": "Неправильна кількість карт",
    "banner.wrong_count.act": "Анулюйте гру (супервайзер)",
    "banner.card_before_no_more_bets.msg": "Карту прочитано до закриття ставок",
    "banner.card_before_no_more_bets.act": "Анулюйте гру (супервайзер)",
    "banner.alarm.msg": "Тривога шуза",
    "banner.alarm.act": "Перевірте шуз, потім Продовжити",
    "banner.lid_open.msg": "Кришку шуза відкрито",
    "banner.lid_open.act": "Закрийте кришку шуза",
    "banner.cut_card.msg": "Дійшли до карти зрізу",
    "banner.cut_card.act": "Після цієї гри нова колода",
    "banner.shoe_empty.msg": "Шуз порожній",
    "banner.shoe_empty.act": "Завантажте нову колоду",
    "banner.exposed_card.msg": "Карту відкрито",
    "banner.exposed_card.act": "Скиньте її і продовжуйте, або анулюйте (супервайзер)",
    "banner.interrupted_round.msg": "Гру перервано",
    "banner.interrupted_round.act": "Продовжте, якщо запис повний, інакше анулюйте",
    "banner.journal_locked.msg": "Журнал недоступний",
    "banner.journal_locked.act": "Зупиніть гру і викличте техніка",
    "banner.rejected.msg": "Дію відхилено",
    "banner.rejected.act": "Прочитайте причину і спробуйте ще раз",
}

MESSAGES: Mapping[str, Mapping[str, str]] = {"en": _EN, "fr": _FR, "uk": _UK}
"""Language code -> key -> text template (``str.format`` fields)."""

VOID_REASONS = ("card_before_no_more_bets", "wrong_count", "dealer_exposed",
                "misread_unresolved", "shoe_fault", "other")
"""Reasons offered on the void pad; the English text is what the command records."""


class _Params(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


class Translator:
    """Look up labels in one language, falling back to English, then to the key.

    Args:
        lang: ``en``, ``fr`` or ``uk``; anything else means English.
    """

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang if lang in MESSAGES else "en"
        self._table = MESSAGES[self.lang]
        self._cache: dict[tuple[str, tuple[tuple[str, str], ...]], str] = {}

    def has(self, key: str) -> bool:
        """Whether ``key`` has a text in this language or in English."""
        return key in self._table or key in _EN

    def __call__(self, key: str, **params: object) -> str:
        """The text of ``key`` with ``params`` filled in.

        Args:
            key: a label key, e.g. ``btn.reveal``.
            **params: values for the template fields.

        Returns:
            The translated text; unknown fields are left as ``{name}``.
        """
        template = self._table.get(key) or _EN.get(key) or key
        if not params:
            return template
        ck = (key, tuple(sorted((k, str(v)) for k, v in params.items())))
        hit = self._cache.get(ck)
        if hit is None:
            hit = string.Formatter().vformat(template, (), _Params(params))
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache[ck] = hit
        return hit

    def hand(self, name: str | None) -> str:
        """A hand name (``three_of_a_kind``) in this language; empty for None."""
        if not name:
            return ""
        key = f"hand.{name}"
        return self(key) if self.has(key) else name.replace("_", " ").capitalize()

    def bet(self, name: str) -> str:
        """A bet type name (``pair_plus``) in this language."""
        key = f"bet.{name}"
        return self(key) if self.has(key) else name.replace("_", " ").title()

    def state(self, name: str) -> str:
        """A round state name in this language."""
        key = f"state.{name}"
        return self(key) if self.has(key) else name.replace("_", " ").capitalize()

    def banner(self, kind: str, part: str, fallback: str, params: Mapping[str, str]) -> str:
        """A banner's message (``msg``), action (``act``) or player line (``player``).

        Args:
            kind: the banner kind.
            part: ``msg``, ``act`` or ``player``.
            fallback: the controller's English text, used for unknown kinds; when the
                language is English and the controller wrote a text, that text wins
                (it may carry detail the generic label lacks).
            params: values for the template.

        Returns:
            The text to show.
        """
        key = f"banner.{kind}.{part}"
        if (self.lang == "en" and fallback) or not self.has(key):
            return fallback
        return self(key, **params)


def format_money(minor: int, sign: bool = False) -> str:
    """Format minor units as a decimal amount: ``12500`` -> ``125.00``.

    Args:
        minor: an integer amount in minor units (cents).
        sign: prefix ``+`` for positive amounts (negative ones always get ``-``).

    Returns:
        The text, with a thin grouping space every three digits (``1 250.00``).
    """
    neg = minor < 0
    whole, cents = divmod(abs(int(minor)), 100)
    digits = f"{whole:,}".replace(",", "\u202f")
    text = f"{digits}.{cents:02d}"
    if neg:
        return "\u2212" + text
    if sign and minor > 0:
        return "+" + text
    return text


def format_rtp(ppm: int) -> str:
    """Format a return to player in parts per million: ``966270`` -> ``96.63 %``."""
    hundredths = (int(ppm) + 50) // 100
    return f"{hundredths // 100}.{hundredths % 100:02d}\u00a0%"

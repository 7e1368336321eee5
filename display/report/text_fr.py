"""The shift report's texts in French: key -> ``str.format`` template."""

FR: dict[str, str] = {
    "title": "Rapport de service",
    "subtitle": "Table {table} · règles {rules}",
    "amounts": "montants en {currency}",
    "period": "{start} – {end} UTC ({hours} h)",
    "period.in_play": "Le coup {round} était encore en jeu à la fin de la période : ses "
                      "mises et ses résultats comptent dans la période où il est réglé ou "
                      "annulé.",
    "clock.back": "L'horloge de la table a été reculée de {days} j {clock} à l'événement "
                  "{seq} ({time} UTC) : la période et toutes les heures de ce rapport sont "
                  "corrigées des sauts d'horloge journalisés depuis.",
    "clock.forward": "L'horloge de la table a été avancée de {days} j {clock} à l'événement "
                     "{seq} ({time} UTC) : la période et toutes les heures de ce rapport sont "
                     "corrigées des sauts d'horloge journalisés depuis.",
    "made": "Établi le {time} UTC par threecard-table {version}",
    "page": "Table {table} · rapport de service · page {page}",
    "kpi.settled": "Coups réglés",
    "kpi.voided": "Coups annulés",
    "kpi.per_hour": "Coups par heure",
    "kpi.drop": "Mises (drop)",
    "kpi.house": "Gain maison",
    "kpi.hold": "Hold",
    "col.bet": "Mise",
    "kpi.as_outcomes": "dont {n} en résultats",
    "outcomes.note": "Les coups joués en résultats (réglés : {settled}, annulés : {voided}) ne "
                     "portent aucun montant : les tableaux ci-dessus, le drop, le gain maison "
                     "et le hold, le résultat de la maison et les retours observés ne "
                     "comptent que les coups joués en montants. Leurs compteurs de résultats "
                     "suivent.",
    "col.bet_entry": "Mises",
    "entry.amounts": "en montants",
    "entry.outcomes": "en résultats",
    "col.seat": "Place",
    "col.wagered": "Misé (drop)",
    "col.paid": "Payé (gains)",
    "col.won": "Gagné (perdu par les joueurs)",
    "meters.note": "Gain maison = Gagné − Payé. Gagné : les mises perdues par les joueurs ; payé "
                   ": les gains versés en plus des mises rendues. Une mise à égalité ou rendue "
                   "avec un gain ne compte dans aucun des deux ; Hold = Gain maison ÷ Misé.",
    "col.house": "Gain maison",
    "col.hold": "Hold",
    "col.rounds": "Coups",
    "col.refunded": "Remboursé (annulations)",
    "col.time": "Heure (UTC)",
    "col.round": "Coup",
    "col.what": "Quoi",
    "col.reason": "Motif",
    "col.declared": "Déclaré par",
    "col.approved": "Approuvé par",
    "col.detail": "Détail",
    "col.role": "Rôle",
    "col.command": "Action",
    "col.result": "Résultat",
    "col.counter": "Compteur",
    "col.count": "Nombre",
    "col.pays": "Paie",
    "col.return": "Retour exact",
    "sec.house": "Résultat de la maison au fil du service",
    "sec.bets": "Par mise",
    "sec.seats": "Par place",
    "sec.returns": "Retour observé et retour exact",
    "returns.note": "Retour de chaque mise après chaque coup réglé, face à son retour exact "
                    "pour un joueur qui suit la stratégie de la fiche ({strategy}). La bande "
                    "vaut ±3 erreurs types tirées de la variance exacte de la mise selon la "
                    "fiche. {pair_plus} : une main se règle sur ses trois cartes seules, donc "
                    "la main de chaque place est une épreuve et la bande est exacte. "
                    "{ante_play} et {six_card_bonus} : les places partagent les cartes du "
                    "croupier, donc chaque coup est une épreuve, ses places tenues pour "
                    "entièrement corrélées : une borne supérieure, jusqu'à √(places) fois plus "
                    "large que la bande exacte.",
    "sec.rules": "Profil de règles {name}",
    "rules.in_force": "En vigueur : {lines}.",
    "rules.from": "dès {time} table {table}, règles {rules}",
    "rules.qualifier": "Le croupier se qualifie avec {q} ou mieux.",
    "rules.returns": "Retours exacts (énumération complète)",
    "rules.paytable": "Table de paiement",
    "rules.strategy": "Jeu {strategy}",
    "field.card": "carte",
    "field.code": "code",
    # le nom et les valeurs d'un réglage, où les écrans n'en ont pas
    "setting.bet_entry": "Saisie des mises",
    "setting.deal_pattern.round_robin": "une carte à chaque main à tour de rôle",
    "setting.deal_pattern.by_hand": "main par main",
    "setting.exposed_card.burn": "la brûler et continuer",
    "setting.exposed_card.void": "annuler le coup",
    "setting.bet_entry.amounts": "mises en montants",
    "setting.bet_entry.outcomes": "mises en résultats",
    "setting.seconds": "{n} s",
    "field.key": "réglage",
    "field.old": "avant",
    "field.value": "après",
    "field.role": "rôle",
    "field.seat": "place",
    "field.expected": "attendu",
    "field.got": "reçu",
    "field.dealer_hand": "main du croupier",
    "field.decision": "décision",
    "field.burn": "carte brûlée",
    "field.card_seq": "carte n°",
    "rules.edge": "avantage maison sur le total misé",
    "sec.voids": "Annulations et irrégularités",
    "sec.alarms": "Alarmes du sabot",
    "sec.actions": "Actions des superviseurs et techniciens",
    "sec.counters": "Compteurs d'événements",
    "sec.software": "Identité du logiciel",
    "sec.journal": "Journal",
    "sec.sign": "Signatures",
    "none": "Aucun(e) sur cette période.",
    "software.none": "aucune identité enregistrée (démarré sans le démon)",
    "software.header": "Logiciel {version}, identité sha256 {sha256}",
    "software.more": "(identités enregistrées sur la période : {n} ; voir Identité du logiciel)",
    "software.before": "en vigueur au début",
    "software.started": "démarrage",
    "software.ok": "{version}, sha256 {sha256} : les {files} fichiers sont conformes",
    "software.altered": "{version}, sha256 {sha256} : fichiers MODIFIÉS : {n} ({names})",
    "software.problem": "{version} : {problem}",
    "software.alarm": "LOGICIEL MODIFIÉ ({when}, {time}) : {version}, sha256 {sha256} : {n} "
                      "fichiers diffèrent de la version livrée ({names}). Un technicien doit le "
                      "vérifier avant que ces chiffres soient signés.",
    "journal.ok": "Journal vérifié depuis son premier événement, comme le vérifie `threecard "
                  "verify-journal` : {events} événements, la chaîne de hachage, {snapshots} "
                  "instantanés et {rounds} fiches de coups égaux à une relecture.",
    "journal.ok_from": "Journal vérifié depuis l'instantané pris après l'événement {before}, "
                       "d'où partent les chiffres de cette période, jusqu'à son dernier "
                       "événement, comme la table le vérifie au démarrage : la chaîne de "
                       "hachage, l'ancre, et les instantanés ({snapshots}) et fiches de coups "
                       "({rounds}) qui le suivent égaux à une relecture.",
    "journal.before": "Les événements 1 à {before} sont vérifiés par `threecard "
                      "verify-journal` (ou ce rapport avec --full-check).",
    "journal.unreplayed": "Les événements {first} à {last} ont été comptés et la forme de "
                          "leurs fiches vérifiée, sans nouveau hachage ni relecture ici : "
                          "`threecard verify-journal` (ou ce rapport avec --full-check) les "
                          "vérifie.",
    "journal.anchored": "L'ancre à côté du journal (événement {seq}) tient.",
    "journal.broken": "LE JOURNAL ÉCHOUE À LA VÉRIFICATION : {message}. Ces chiffres ne sont pas "
                      "fiables.",
    "journal.banner": "LE JOURNAL ÉCHOUE À LA VÉRIFICATION : ces chiffres ne sont pas fiables "
                      "(voir page 1)",
    "note.no_anchor": "Pas d'ancre à côté du journal : ses derniers événements n'ont pas été "
                      "vérifiés par rapport à une ancre.",
    "note.after_anchor": "Les événements {first} à {last} suivent l'ancre (événement "
                         "{anchor}) : elle ne les couvre pas.",
    "note.other_table": "La table {name} du fichier du journal ne fait pas partie du "
                        "journal : non vérifiée.",
    "note.snapshot_unloadable": "L'instantané pris après l'événement {seq} ne peut pas être "
                                "chargé par cette version : vérifié depuis l'événement 1.",
    "note.archive_missing": "Les événements 1 à {last} ont été déplacés vers une archive "
                            "introuvable à côté du journal : non vérifiés.",
    "note.archive_past_cut": "L'archive va au-delà de la coupure à l'événement {seq} (un "
                             "archivage inachevé) : ses lignes après la coupure n'ont pas été "
                             "lues.",
    "note.cut_snapshot_unreadable": "L'instantané pris après l'événement {seq}, où le journal "
                                    "a été coupé, ne peut pas être lu par cette version : les "
                                    "enregistrements antérieurs au point de départ n'ont pas "
                                    "été vérifiés.",
    "note.tables_missing": "Il manquait au fichier du journal sa ou ses tables {names} : "
                           "lues vides, comme la table les crée.",
    "note.unfinished": "Cette vérification n'a pas fini en {seconds} s : {parts} ; `threecard "
                       "verify-journal` les vérifie.",
    "note.part.count": "le comptage des événements",
    "note.part.records": "les enregistrements antérieurs au point de départ",
    "note.part.pages": "les pages du fichier",
    "journal.start": "Au début",
    "journal.end": "À la fin",
    "journal.anchor": "Ancre",
    "journal.event": "Événement",
    "journal.hash": "Hachage de chaîne",
    "seal.title": "Dernier sceau",
    "seal.witness": "Le dernier sceau du journal quand ce rapport a été fait : époque {epoch}, "
                    "événement {seq}. Gardez la ligne ci-dessous avec le rapport signé : "
                    "`threecard verify-journal --witness` suivi de cette ligne vérifie que le "
                    "journal détient toujours ce sceau (un journal remis à une copie plus "
                    "ancienne, ou remplacé, échoue).",
    "seal.none": "Le journal ne détient encore aucun sceau : il n'y a aucun témoin à garder.",
    "seal.unsealed": "Le journal n'est pas scellé (créé avant les sceaux) : il n'y a aucun "
                     "témoin à garder ; `threecard seal init` commence une chaîne de sceaux "
                     "(la table arrêtée).",
    "sign.dealer": "Croupier",
    "sign.supervisor": "Superviseur",
    "sign.name": "Nom",
    "sign.signature": "Signature",
    "sign.date": "Date",
    "plot.house": "Résultat maison",
    "plot.void": "Annulation",
    "plot.alarm": "Alarme",
    "plot.time": "Heure (UTC)",
    "plot.rounds": "Coups réglés",
    "plot.observed": "Retour observé",
    "plot.exact": "Retour exact {value}",
    "plot.band": "±3 erreurs types",
    "plot.empty": "Aucun coup réglé sur cette période",
    "kind.manual_card": "Carte saisie à la main",
    "kind.exposed_card": "Carte exposée",
    "kind.deck_blocked": "Jeu bloqué",
    "kind.deck_unblocked": "Jeu débloqué",
    "kind.interrupted_round": "Coup interrompu par un redémarrage",
    "kind.resumed": "Coup repris",
    "kind.void": "Coup annulé",
    "alarm.link_disconnected": "Liaison sabot perdue",
    "alarm.link_silent": "Sabot muet",
    "alarm.lid_open": "Couvercle du sabot ouvert",
    "alarm.alarm": "Alarme du sabot",
    "alarm.misread": "Carte mal lue",
    "alarm.seq_gap": "Message du sabot perdu",
    "alarm.frame_error": "Trame mal formée",
    "alarm.warning": "Avertissement du sabot",
    "alarm.empty": "Sabot vide",
    "alarm.no_frame": "Aucune trame décodée",
    "alarm.retract": "Carte retirée",
    "role.dealer": "Croupier",
    "role.supervisor": "Superviseur",
    "role.technician": "Technicien",
    "role.table": "Table",
    "role.dealer!": "Code PIN erroné",
    "role.pending": "Pas encore",
    "result.done": "Fait",
    "result.refused": "Refusé : {reason}",
    "void.card_before_no_more_bets": "Carte avant « rien ne va plus »",
    "void.wrong_count": "Mauvais nombre de cartes",
    "void.dealer_cards_exposed": "Cartes du croupier exposées",
    "void.exposed_card": "Carte exposée",
    "void.duplicate_card": "Carte vue deux fois dans le jeu",
    "void.unknown_card": "Carte inconnue",
    "void.misread_unresolved": "Carte mal lue non résolue",
    "void.software_altered": "Logiciel modifié",
    "void.environment_altered": "Code de démarrage inconnu ou fichiers modifiés",
    "cmd.place_bet": "Mise",
    "cmd.clear_bets": "Effacer les mises",
    "cmd.rebet": "Même mise",
    "cmd.no_more_bets": "Rien ne va plus",
    "cmd.reopen_bets": "Rouvrir les mises",
    "cmd.decide": "Décision",
    "cmd.reveal": "Révélation",
    "cmd.settle": "Règlement",
    "cmd.next_round": "Coup suivant",
    "cmd.void": "Annuler le coup",
    "cmd.manual_card": "Carte à la main",
    "cmd.unblock_deck": "Débloquer le jeu",
    "cmd.resume": "Reprendre",
    "cmd.new_deck": "Nouveau jeu",
    "cmd.exposed_card": "Carte exposée",
    "cmd.config_change": "Modifier un réglage",
    "cmd.change_pin": "Changer un code PIN",
    "counter.power_ups": "Mises sous tension",
    "counter.shoe_power_ups": "Mises sous tension du sabot",
    "counter.shoe_disconnects": "Déconnexions du sabot",
    "counter.voids": "Annulations",
    "counter.overrides": "Interventions du superviseur",
    "counter.misreads": "Cartes mal lues",
    "counter.manual_cards": "Cartes saisies à la main",
    "counter.alarms": "Alarmes du sabot",
    "counter.lid_opens": "Ouvertures du couvercle",
    "counter.retracts": "Cartes retirées",
    "counter.seq_gaps": "Messages du sabot perdus",
    "counter.frame_errors": "Trames mal formées",
    "counter.rejected": "Entrées refusées",
    "counter.pin_failures": "Codes PIN erronés",
    "counter.pin_lockouts": "Blocages du code PIN",
    "counter.config_changes": "Changements de réglage",
    "counter.exposed_cards": "Cartes exposées",
    "counter.card_before_no_more_bets": "Cartes avant « rien ne va plus »",
    "counter.wrong_count": "Mauvais nombres de cartes",
    "counter.duplicate_card": "Cartes vues deux fois",
    "counter.unknown_card": "Cartes inconnues",
    "counter.shoe_empty": "Sabot vide",
    "counter.shoe_warnings": "Avertissements du sabot",
    "counter.unreadable_burns": "Cartes brûlées illisibles",
    "counter.faults": "Entrées en échec",
}

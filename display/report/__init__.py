"""The shift report (``threecard report shift``): a PDF of :mod:`controller.game.shift`'s figures.

reportlab and matplotlib are imported only when a report is made, never by the running table.
"""

"""The shift report (``threecard report shift``): a PDF from a shift's figures.

:mod:`controller.game.shift` computes the figures; this package lays them out
(:mod:`display.report.document`, reportlab), draws the plots (:mod:`display.report.plots`,
matplotlib) and says it in English, French or Ukrainian (:mod:`display.report.labels`).
Both libraries are imported only when a report is made: never by the running table.
"""

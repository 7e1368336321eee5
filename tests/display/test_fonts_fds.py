"""The screens' fonts hold no file open: a shoe's serial port must stay below select()'s 1024."""

from __future__ import annotations

import os

import pygame

from display.theme import FontBook


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_fonts_of_every_size_keep_no_file_open():
    pygame.font.init()
    before = _open_fds()
    books = [FontBook() for _ in range(2)]  # the dealer's and the players' screens
    for book in books:
        for size in range(4, 260):
            for bold in (False, True):
                assert book.font(size, bold).size("Ante 10,00 €")[0] > 0
    assert _open_fds() - before < 5, "a font per size holds a descriptor"

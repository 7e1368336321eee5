"""The table's wiring: the daemon and the ``threecard`` sub-commands; no pygame, pyserial, pyusb."""

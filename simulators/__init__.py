"""Simulated card shoes that speak the real dialects over the real transports.

* :mod:`simulators.shoe`: :class:`~simulators.shoe.SimulatedShoe` (deck, dialect,
  firmware model, every fault of :mod:`simulators.faults` by
  :meth:`~simulators.shoe.SimulatedShoe.inject`);
  :mod:`simulators.runner`: :class:`~simulators.runner.ShoeRunner` (heartbeats, timed
  dealing in rounds, scheduled faults).
* Ports, the device side of each transport: :class:`simulators.ports.MemoryPort`
  (in-memory pair), :class:`simulators.pty_shoe.PtyPort` (pseudo-terminal: the real
  pyserial path), :class:`simulators.tcp_shoe.TcpPort` (``socket://`` on 127.0.0.1) and
  :class:`simulators.usb_backend.UsbPort` on :class:`simulators.usb_backend.SimUsbBackend`
  (a pyusb backend, so ``usb://`` runs without hardware).
* :mod:`simulators.sim_link`: the ``sim://`` shoe of :func:`drivers.open_link`; importing
  it registers its opener, :func:`~simulators.sim_link.open_sim`, in
  :data:`drivers.url.SCHEMES`.
* :mod:`simulators.event_shoe`: shoe events without bytes, for engine tests.
* :mod:`simulators.cli`: ``threecard shoe-sim``.

Each port has a ``url`` that :func:`drivers.open_link` opens, and keeps finding after an
unplug and a replug under another name::

    shoe = SimulatedShoe("beetek", seed=3)
    port = PtyPort(tmpdir, dialect="beetek")   # /dev/pts/N, also tmpdir/ttySHOE0
    shoe.attach(port)
    link = drivers.open_link(port.url, inbox)  # serial://tmpdir/ttySHOE*?dialect=beetek
    link.start(); shoe.deal()
    shoe.inject("unplug"); shoe.deal()         # half a frame, then the cable is out
    shoe.inject("replug")                      # tmpdir/ttySHOE1: found, frame resent whole
"""

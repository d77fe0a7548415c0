"""A stand-in ERP that speaks the wire protocol of DESIGN §10, for the demo and for tests.

It runs as its own process (`python -m erpsim`) with its own SQLite file, so the
procurement app reaches it over a real socket, and faults can be switched on over HTTP.
Standard library only, so it starts anywhere Python does.
"""

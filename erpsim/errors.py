"""Refusals the simulator answers with `{"detail": ...}`; each carries its HTTP status."""


class ErpError(Exception):
    status = 400

    @property
    def detail(self) -> str:
        return str(self)


class Invalid(ErpError):
    status = 400


class NotFound(ErpError):
    status = 404


class Conflict(ErpError):
    status = 409

"""Ids arrive from URLs and forms as text; a malformed one is simply not found."""
import uuid


def is_uuid(value) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True

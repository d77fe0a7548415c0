"""The file broker of `make run` (kombu's filesystem transport) with whole messages only.

kombu writes a message into its final name, so a worker polling the folder can take the file
while it is still empty and die on the JSON ("Unrecoverable error: JSONDecodeError"). Here a
message is written under a name no queue reads, then renamed: a reader sees all of it or none."""
import os
import uuid
from time import monotonic

from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = os.path.join(self.data_folder_out, f"partial-{uuid.uuid4()}")  # no "." queue suffix: never read
        try:
            with open(partial, "wb") as f:
                f.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise filesystem.ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel

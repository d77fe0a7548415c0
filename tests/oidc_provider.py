"""A small OIDC provider on loopback for the sign-in tests: discovery, JWKS, an authorize endpoint
that redirects straight back with a code, and a token endpoint that issues RS256 id tokens signed
with a key generated here. What the next sign-in carries is set on the provider: the person's
claims, and for the bad-input tests a wrong audience, a foreign key or an expired token."""
import base64
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa


def _b64(number: int) -> str:
    raw = number.to_bytes((number.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


class Provider:
    def __init__(self, client_id: str = "procurement", port: int = 0):
        self.client_id = client_id
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = "test-key"
        self.claims: dict = {}
        self.faults: set = set()  # "audience", "signature", "expired"
        self.codes: dict = {}
        self.server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def discovery(self) -> dict:
        return {"issuer": self.url, "authorization_endpoint": f"{self.url}/authorize",
                "token_endpoint": f"{self.url}/token", "jwks_uri": f"{self.url}/jwks",
                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"]}

    def jwks(self) -> dict:
        public = self.key.public_key().public_numbers()
        return {"keys": [{"kty": "RSA", "use": "sig", "alg": "RS256", "kid": self.kid,
                          "n": _b64(public.n), "e": _b64(public.e)}]}

    def id_token(self, nonce: str) -> str:
        now = int(time.time())
        expires = now - 60 if "expired" in self.faults else now + 300
        claims = {"iss": self.url, "aud": "someone-else" if "audience" in self.faults else self.client_id,
                  "iat": now - (600 if "expired" in self.faults else 0), "exp": expires, "nonce": nonce,
                  **self.claims}
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048) if "signature" in self.faults else self.key
        return jwt.encode(claims, key, algorithm="RS256", headers={"kid": self.kid})

    def _handler(self):
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _json(self, body: dict, status: int = 200):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                url = urlsplit(self.path)
                if url.path == "/.well-known/openid-configuration":
                    return self._json(provider.discovery())
                if url.path == "/jwks":
                    return self._json(provider.jwks())
                if url.path == "/authorize":
                    query = {k: v[0] for k, v in parse_qs(url.query).items()}
                    code = uuid.uuid4().hex
                    provider.codes[code] = query.get("nonce", "")
                    self.send_response(302)
                    self.send_header("Location", query["redirect_uri"] + "?" + urlencode(
                        {"code": code, "state": query["state"]}))
                    self.end_headers()
                    return None
                return self._json({"error": "not_found"}, 404)

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                nonce = provider.codes.pop(form.get("code", ""), None)
                if urlsplit(self.path).path != "/token" or nonce is None:
                    return self._json({"error": "invalid_grant"}, 400)
                return self._json({"access_token": uuid.uuid4().hex, "token_type": "Bearer", "expires_in": 300,
                                   "id_token": provider.id_token(nonce)})

        return Handler


def main():
    """Run the provider by hand, to try directory sign-in on `make run`: it prints the variables to
    start the product with, and every sign-in through it is the one person given here."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--user", default="mei")
    parser.add_argument("--email", default="mei@example.com")
    parser.add_argument("--groups", default="eng-managers", help="comma-separated directory groups")
    args = parser.parse_args()
    provider = Provider(port=args.port)
    provider.claims = {"sub": args.user, "email": args.email, "preferred_username": args.user,
                       "name": args.user, "groups": [g for g in args.groups.split(",") if g]}
    found = provider.discovery()
    group_map = {"eng-staff": {"department": "ENG", "role": "requester"},
                 "eng-managers": {"department": "ENG", "role": "manager", "approval_limit": "100000"},
                 "directors": {"department": None, "role": "director", "approval_limit": "5000000"}}
    print("Start the product with:\n")
    print(f"OIDC_RP_CLIENT_ID={provider.client_id} OIDC_RP_CLIENT_SECRET=secret \\\n"
          f"OIDC_OP_ISSUER={found['issuer']} \\\n"
          f"OIDC_OP_AUTHORIZATION_ENDPOINT={found['authorization_endpoint']} \\\n"
          f"OIDC_OP_TOKEN_ENDPOINT={found['token_endpoint']} OIDC_OP_JWKS_ENDPOINT={found['jwks_uri']} \\\n"
          f"OIDC_GROUP_MAP='{json.dumps(group_map)}' make run\n")
    print(f"Signing in as {args.user} <{args.email}> in groups {provider.claims['groups']}. Ctrl-C stops.")
    try:
        provider.server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

"""File tools, registered the way many servers do it: inside a registration function."""

from typing import Annotated, Any

from pydantic import Field

from toolgen import tool


def register(server: Any) -> None:
    """Attach the file tools to `server` (a stand-in for an MCP server object)."""

    @tool(
        risk="low",
        category="files",
        keywords=["download", "share file", "signed url"],
        version="1.0.0",
        latency_p50_ms=40,
    )
    def create_download_link(
        file_id: Annotated[str, Field(max_length=64)],
        expires_in_minutes: "int" = 60,
    ) -> str:
        """Create a temporary download link for a stored file.

        Use it to share a stored file. Asking again for the same file and expiry returns
        the same link.

        Args:
            file_id: Identifier of the stored file.
            expires_in_minutes: How long the link stays valid.

        Returns:
            The signed URL.

        Errors:
            NOT_FOUND: No file has this identifier.

        Examples:
            A link valid for ten minutes:

            >>> create_download_link(file_id="f-1", expires_in_minutes=10)
            "https://files.example.com/f-1?sig=abc"

            An unknown file:

            >>> create_download_link(file_id="f-404")
            {"error": {"code": "NOT_FOUND", "message": "no file f-404"}}

        Idempotency:
            idempotent: true
            safe: true
            destructive: false
            open_world: false
        """
        raise NotImplementedError

    server.add_tool(create_download_link)

    @tool(
        risk="forbidden",
        category="files",
        permissions=["secrets:read"],
        keywords=["secret", "private key", "credentials"],
        version="1.0.0",
        latency_p50_ms=15,
    )
    def read_private_key(key_name: Annotated[str, Field(max_length=128)]) -> str:
        """Read a private key from the secret store.

        Only for the audit trail: never exposed to a model.

        Args:
            key_name: Name of the key in the secret store.

        Returns:
            The PEM-encoded key.

        Errors:
            NOT_FOUND: No key has this name.

        Examples:
            Read the signing key:

            >>> read_private_key(key_name="signing")
            "-----BEGIN PRIVATE KEY-----"

            An unknown key:

            >>> read_private_key(key_name="nope")
            {"error": {"code": "NOT_FOUND", "message": "no key nope"}}

        Idempotency:
            idempotent: true
            safe: true
            destructive: false
            open_world: false
        """
        raise NotImplementedError

    server.add_tool(read_private_key)

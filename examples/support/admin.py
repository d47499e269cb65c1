"""Account administration, as methods of a tool class."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from toolgen import tool


class AdminTools:
    """Administrative tools; one instance per tenant."""

    def __init__(self, tenant: str) -> None:
        self.tenant = tenant

    @tool(
        risk="critical",
        category="admin",
        permissions=["users:delete"],
        audit_event="user.deleted",
        step_up_auth=True,
        keywords=["delete account", "remove user", "offboarding"],
        version="1.0.0",
        latency_p50_ms=300,
    )
    def delete_user(
        self,
        user_id: Annotated[str, Field(max_length=64)],
        environment: Literal["staging", "production"] = "staging",
        mode: Literal["soft", "hard"] = "soft",
        confirm_email: Annotated[str, Field(max_length=254)] | None = None,
    ) -> None:
        """Delete a user account and revoke its sessions.

        Use it only when the customer asks to close the account. A soft delete can be
        undone for 30 days; a hard delete cannot.

        Args:
            user_id: Identifier of the account to delete.
            environment: Where the account lives; only a call that says production
                deletes a real customer.
            mode: Soft deletes keep the data for 30 days.
            confirm_email: The account's email, as a check that the right user is deleted.

        Returns:
            Nothing.

        Errors:
            NOT_FOUND: No such user.
            FORBIDDEN: The caller may not delete this user.

        Examples:
            Soft-delete an account:

            >>> delete_user(user_id="u-42", environment="production")
            null

            An unknown user:

            >>> delete_user(user_id="u-0", environment="production")
            {"error": {"code": "NOT_FOUND", "message": "no user u-0"}}

        Side Effects:
            - Revokes every session of the user.
            - Sends the user a notification email.

        Idempotency:
            idempotent: true
            safe: false
            destructive: true
            open_world: false
        """
        raise NotImplementedError

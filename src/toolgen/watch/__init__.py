"""`toolgen build --watch`: the rebuild loop, and the socket through which it answers others."""

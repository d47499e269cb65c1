"""`toolgen lsp`: the language server. `live` compiles what an editor holds, unsaved, and
builds on save (no LSP in it); `ranges`, `actions` and `hover` turn what it found into the
protocol's terms; `server` speaks the protocol (pygls), the only module that imports it."""

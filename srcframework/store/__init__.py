"""Where archives and snapshots live and how big they may be: the clone's folders (`paths`), the
size limits (`limits`), released archives (`release`), snapshots of work under way (`snapshot`),
a training put back from its released archive (`from_release`) and the models folder's quota
(`quota`). This package is the only writer under `models/` (docs/architecture.md).

Importing the package imports none of its modules: `paths` and `limits` are read from every layer.
"""

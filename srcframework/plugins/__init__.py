"""Third-party plugins: distributions that add components through `srcframework` entry points.

See `srcframework.plugins.hookspecs` for the hooks a plugin implements and
`srcframework.plugins.manager.load_plugins` for how they are found and registered.
"""
import pluggy

from srcframework.plugins.hookspecs import PROJECT_NAME, hookspec

hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

from srcframework.plugins.manager import (  # noqa: E402
    PluginError,
    PluginFailure,
    PluginInfo,
    PluginReport,
    PluginTypeError,
    get_plugin_manager,
    load_plugins,
    unload_plugins,
)

__all__ = [
    "hookimpl",
    "hookspec",
    "PluginError",
    "PluginFailure",
    "PluginInfo",
    "PluginReport",
    "PluginTypeError",
    "get_plugin_manager",
    "load_plugins",
    "unload_plugins",
]

"""Emission: every solution as a CK Tile kernel instance (jinja2 templates).

``emit(pairs, out_dir)`` writes, for each (arch, config), ``<name>.hpp``,
``<name>.cpp`` and ``dispatcher_wrappers/dispatcher_wrapper_<name>.hpp``, plus
the ``include_all_grouped_conv_*_kernels.hpp`` headers and
``dispatcher_wrappers/register_all_grouped_conv_kernels.hpp``.
Rendering alone (no files) is in :mod:`cksolve.emit.render`.
"""

from .render import kernel_files, global_files, render_all
from .cmake import CMAKE_DIR, cmake_list_text, cmake_path_error, installation_files, write_cmake_list
from .interrupt import EmitInterrupted
from .names import EmitError, check_file_name, names_to_configs
from .unity import check_batch
from .writer import EmitSummary, emit, emit_trees

__all__ = [
    "emit",
    "emit_trees",
    "EmitError",
    "EmitInterrupted",
    "EmitSummary",
    "names_to_configs",
    "check_file_name",
    "kernel_files",
    "global_files",
    "render_all",
    "check_batch",
    "CMAKE_DIR",
    "installation_files",
    "cmake_list_text",
    "cmake_path_error",
    "write_cmake_list",
]

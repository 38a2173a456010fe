"""everypath: compile annotated Python functions ahead of time to native code."""
from everypath.api import CompiledFunction, compile, load
from everypath.errors import BuildError, CompileError, CompileErrors, OpenSignatureError, SourceLocation

__version__ = "0.1.0"
__all__ = ["compile", "load", "CompiledFunction", "CompileError", "CompileErrors", "OpenSignatureError", "BuildError", "SourceLocation", "__version__"]

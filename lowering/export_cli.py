"""`everypath export MODULE.py:FUNC -o DIR`: the files another language calls, ready to use on this machine.

    DIR/c/      libNAME.so + NAME.h            (this CPU's best linux-x86_64 level or linux-arm64)
    DIR/java/   everypath/..., Name.java sources + libNAME_jni.so + libNAME.so (the JNI glue built here)
    DIR/web/    NAME.mjs + NAME.wasm           (the ES module for browsers and Node)

A bundle (`everypath bundle`) carries every target; this is the unpacked, built-for-here view of one
function, so a C program, a Java program or a web page can call it with the commands the README shows.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import click

from everypath.base.errors import BuildError, CompileError


def _host_target() -> str:
    from everypath.lowering.loader import host
    from everypath.lowering.targets import native_linux

    h = host()
    native = native_linux(h.arch, h.isa_level)
    if not native:
        raise click.ClickException(f"no Linux target runs natively on this device ({h.describe()})")
    return native[-1].name


def _java(pf_gen: object, lib: Path, out: Path) -> None:
    from everypath.lowering import jni

    binding = jni.jni_binding(pf_gen)  # type: ignore[arg-type]
    binding.write(out, out / f"{binding.library}.c")
    shutil.copy2(lib, out / lib.name)
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        raise click.ClickException("a C compiler (gcc) is needed to build the JNI glue")
    name = lib.name.removeprefix("lib").removesuffix(".so")
    cmd = [gcc, "-std=c11", "-O2", "-fPIC", "-shared", *[f"-I{d}" for d in jni.jni_include_dirs()],
           str(out / f"{binding.library}.c"), "-o", str(out / f"lib{binding.library}.so"), f"-L{out}", f"-l{name}",
           "-Wl,-rpath,$ORIGIN"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise click.ClickException(f"the JNI glue did not build (an everypath bug):\n{done.stderr[-3000:]}")
    (out / f"{binding.library}.c").unlink()


@click.command("export")
@click.argument("target")
@click.option("-o", "--output", "output", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="The folder to write c/, java/ and web/ into.")
@click.option("--no-java", is_flag=True, help="Skip the JNI binding (no JDK needed).")
def export_cmd(target: str, output: Path, no_java: bool) -> None:
    """Write MODULE.py:FUNC as a C library + header, a Java binding and an ES module, built for here."""
    from everypath.base.settings import Settings
    from everypath.lowering.bundle_cli import _one_function
    from everypath.lowering.dispatch import PathPolicy
    from everypath.lowering.pipeline import generate
    from everypath.lowering.portable import build_target
    from everypath.lowering.targets import ArtifactKind, get

    pyfunc = _one_function(target)
    settings = Settings.from_env()
    native, web = get(_host_target()), get("web")
    try:
        gen = generate(pyfunc, settings, policy=PathPolicy.for_target(native, settings))
        libs, _ = build_target(gen, native, settings, kinds=(ArtifactKind.SHARED,))
        gen_web = generate(pyfunc, settings, policy=PathPolicy.for_target(web, settings))
        wasm, _ = build_target(gen_web, web, settings)
    except (CompileError, BuildError) as exc:
        raise click.ClickException(str(exc)) from None
    for sub, arts in (("c", libs), ("web", wasm)):
        folder = output / sub
        folder.mkdir(parents=True, exist_ok=True)
        for a in arts:
            for f in (a.path, *a.extra_files):
                shutil.copy2(f, folder / f.name)
    if not no_java:
        _java(gen, libs[0].path, output / "java")
    click.echo(f"wrote {output}/c ({native.name}), {output}/web" + ("" if no_java else f", {output}/java"))

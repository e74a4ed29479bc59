"""pulumi-language-python-exec: runs a Pulumi Python program for our Python language host
(python-host.ts), which starts it with the program's Python and the arguments and
environment of Pulumi's host: --monitor, --engine, --project, --root_directory, --stack,
--pwd, --dry_run true|false, --parallel N, --organization, then the program (a file, or a
directory holding __main__.py) and its arguments; the stack's config in PULUMI_CONFIG and
the names of its secret keys in PULUMI_CONFIG_SECRET_KEYS (both JSON).

The `pulumi` package on PyPI ships no such runner (Pulumi's is a file of its host's Go
module, which the module proxy refuses), so this one does what the SDK expects of one:
config and settings first, then the program inside the root stack resource, on an event
loop whose default executor has room for the requested parallelism.

Exit codes, as the host reads them: 0 done; 1 a failure the SDK has reported to the engine;
32 (the hosts' "bail") the program raised and its traceback has been reported, or it was
interrupted (below), or the engine stopped the run (the resource monitor went away).

An interrupt (SIGINT) ends the program at once and quietly. The CLI sends one to the language
host's whole process group, this program included, when it closes the host, and after a
failed step it does so without waiting for the program: the engine stops the resource monitor,
cancels the program's source with a context already cancelled (pkg/resource/deploy,
deploymentExecutor.Execute) and closes the plugins (pkg/resource/plugin, InterruptChildren).
The program is then still unwinding its RPCs ("resource monitor shut down"), and Python's
default for SIGINT, KeyboardInterrupt, printed their traceback above the step's diagnostic.
Pulumi's own runner has the same default; the engine has already said what went wrong, and
the same holds for a cancel (the host's Cancel interrupts the program too).
"""

import argparse
import asyncio
import logging
import os
import runpy
import signal
import sys
import traceback
from concurrent.futures import ThreadPoolExecutor

EXIT_AFTER_USER_MESSAGE = 32

# The SDK's error for an RPC the resource monitor no longer answers (pulumi/runtime/settings.py,
# grpc_error_to_exception): the engine has stopped the run and reported why, so the program
# ends without adding an error of its own ("one failure per problem"). Pulumi's runner logs it.
MONITOR_TERMINATED = "Resource monitor has terminated, shutting down"

try:
    import pulumi
    import pulumi.runtime
except ImportError:
    print(traceback.format_exc(), file=sys.stderr)
    print(
        "The `pulumi` Python package is not installed in the Python that runs this program "
        f"({sys.executable}): install it there (pip install pulumi), or set the runtime option "
        "`virtualenv` in Pulumi.yaml to a virtual environment that has it.",
        file=sys.stderr,
    )
    sys.exit(1)


def interrupted(_signum: int, _frame: object) -> None:
    """SIGINT: the engine is done with this program (see above). Exits without unwinding, so
    that no thread of the SDK and no finally clause can print what it was doing."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 -- a stream the interrupt found mid-write; nothing more to show
            pass
    os._exit(EXIT_AFTER_USER_MESSAGE)


def arguments() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description="Run a Pulumi Python program")
    for flag in ("monitor", "engine", "project", "root_directory", "stack", "pwd", "dry_run", "parallel", "organization", "tracing"):
        ap.add_argument(f"--{flag}")
    ap.add_argument("PROGRAM")
    ap.add_argument("ARGS", nargs="*")
    return ap.parse_args()


def program_traceback(program: str) -> str:
    """The traceback of the exception being handled, from the program's first frame on: the
    frames of this runner, asyncio and the SDK above it are not the user's to read. A frame
    is the program's when its file is in the program's directory and not in the Python
    environment (which may be a virtualenv inside that directory); a frame of no file
    ("<frozen runpy>", "<string>") is nobody's: os.path.abspath would put it in the current
    directory, the program's. From that frame on, the traceback is shown whole, as Pulumi's
    own runner shows it from the program's first frame. An exception raised where
    no frame is the program's (an awaited output of a failed call) is shown by its message."""
    kind, error, tb = sys.exc_info()
    directory = program if os.path.isdir(program) else os.path.dirname(program)
    frame = tb
    while frame is not None:
        name = frame.tb_frame.f_code.co_filename
        file = os.path.abspath(name)
        if not name.startswith("<") and file.startswith(directory + os.sep) and not file.startswith(sys.prefix + os.sep):
            break
        frame = frame.tb_next
    if frame is None:
        return "".join(traceback.format_exception_only(kind, error))
    return "".join(traceback.format_exception(kind, error, frame))


def main() -> int:
    signal.signal(signal.SIGINT, interrupted)
    args = arguments()
    pulumi.runtime.set_all_config(pulumi.runtime.get_config_env(), pulumi.runtime.get_config_secret_keys_env())
    parallel = int(args.parallel) if args.parallel else None
    pulumi.runtime.configure(
        pulumi.runtime.Settings(
            monitor=args.monitor,
            engine=args.engine,
            project=args.project,
            stack=args.stack,
            parallel=parallel,
            dry_run=args.dry_run == "true",
            organization=args.organization,
            root_directory=args.root_directory,
        )
    )
    program = os.path.abspath(args.PROGRAM)
    sys.argv = [program, *args.ARGS]
    if args.pwd:
        os.chdir(args.pwd)

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    # The SDK runs its blocking RPCs on the loop's default executor: as many threads as the
    # engine may run operations at once (times four, as Pulumi's runner sizes it).
    executor = ThreadPoolExecutor(max_workers=max(parallel or 1, 1) * 4)
    loop.set_default_executor(executor)
    # A failed program leaves futures of its resource graph unobserved, on purpose; asyncio
    # would log each one as an error the user can do nothing about.
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    try:
        loop.run_until_complete(pulumi.runtime.run_in_stack(lambda: runpy.run_path(program, run_name="__main__")))
        return 0
    except pulumi.RunError as e:
        if str(e) == MONITOR_TERMINATED:
            # The engine stopped the run (a failed step, a cancel) and has said why.
            return EXIT_AFTER_USER_MESSAGE
        pulumi.log.error(str(e))
        return 1
    except Exception:  # noqa: BLE001 -- any error of the program is the user's to see
        pulumi.log.error("Program failed with an unhandled exception:\n" + program_traceback(program))
        return EXIT_AFTER_USER_MESSAGE
    finally:
        executor.shutdown(wait=True)
        loop.close()
        sys.stdout.flush()
        sys.stderr.flush()


if __name__ == "__main__":
    sys.exit(main())

"""The aws CLI, kept running for a test process.

Each `aws` command starts Python and imports botocore before it sends a request; the suite runs
over a hundred of them. This runs the same entry point the `aws`
script runs (`awscli.clidriver`), with a new driver and the given environment for every command,
so each is the aws CLI's own parsing, signing and output, without the start-up.

Every command's session reads the same service definitions: large JSON files whose parsing was
most of a command's processor time. One botocore loader, which keeps what it parsed, serves
every session. What the definitions say does not depend on a command's environment
(AWS_DATA_PATH, the only setting that moves them, is fixed at import).

Protocol, one JSON object per line: stdin {"arguments": [...], "environment": {...}};
stdout {"exit": n, "stdout": "...", "stderr": "..."}, after a first line "ready" once the CLI
is imported. It ends when stdin closes.
"""

import contextlib
import io
import json
import os
import sys

import awscli.clidriver

# What importing the CLI put in the environment (awscli sets AWS_DATA_PATH, where its own
# command definitions are) stays under every command's environment.
imported = {key: value for key, value in os.environ.items() if key == "AWS_DATA_PATH"}
shared_loader = None
answers = sys.stdout
answers.write("ready\n")
answers.flush()
for line in sys.stdin:
    request = json.loads(line)
    os.environ.clear()
    os.environ.update(imported)
    os.environ.update(request["environment"])
    captured_out, captured_err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(captured_out), contextlib.redirect_stderr(captured_err):
        try:
            driver = awscli.clidriver.create_clidriver()
            if shared_loader is None:
                shared_loader = driver.session.get_component("data_loader")
            else:
                driver.session.register_component("data_loader", shared_loader)
            code = driver.main(request["arguments"])
        except SystemExit as exit:
            code = exit.code if isinstance(exit.code, int) else 1
        except Exception as error:  # a crash of the CLI is that command's failure, not the server's
            print(f"aws_cli_server: {type(error).__name__}: {error}", file=sys.stderr)
            code = 255
    answers.write(
        json.dumps({"exit": code, "stdout": captured_out.getvalue(), "stderr": captured_err.getvalue()}) + "\n"
    )
    answers.flush()

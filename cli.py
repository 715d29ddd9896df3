"""The ``modelcheck`` console script; the command line itself is ``modelcheck/commands/cli.py``.

It stays a top-level module so that a clone runs without installing
(``python3 cli.py run kip320``) and spark-submit can be given its file
(``spark-submit "$(python3 -c 'import cli; print(cli.__file__)')" run ...``).
"""

from modelcheck.commands.cli import main

if __name__ == "__main__":
    main()

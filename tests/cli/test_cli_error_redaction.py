"""An `error:` line never holds a key, whether the key comes from a standard variable or only from the
config file; and without a config file the line is printed without importing pydantic (the redaction's
light path: the keys it would add are the ones `secrets.known()` already reads)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from core.models.secrets import MARK

REPO = Path(__file__).resolve().parents[2]
ENV_KEY = "sk-proj-Q7vLm2XcB9dR4tY8wZ1nK6pH3sF0gJ5aE"
FILE_KEY = "sk-proj-Zr4Tb8Nq2Lw6Yc0Hm5Vx9Ks3Dg7Jf1PaU"

CHECK_MODULES = (
    "import runpy, sys\n"
    "sys.argv = ['sembench'] + sys.argv[1:]\n"
    "try:\n"
    "    runpy.run_module('core', run_name='__main__')\n"
    "finally:\n"
    "    print('PYDANTIC' if 'pydantic' in sys.modules else 'NO-PYDANTIC', file=sys.stderr)\n"
)


def _error_line(tmp_path: Path, key: str, env_extra: dict[str, str]) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY",
                                                            "SEMBENCH_CONFIG")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               PYTHONPATH=str(REPO), **env_extra)
    # A bad flag value: click's error quotes it, and with it the key.
    proc = subprocess.run([sys.executable, "-c", CHECK_MODULES, "generate", "cascade", "--seed", f"x-{key}"],
                          env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    return proc.returncode, proc.stderr


def test_a_key_from_the_environment_is_redacted_without_importing_pydantic(tmp_path: Path) -> None:
    rc, err = _error_line(tmp_path, ENV_KEY, {"OPENAI_API_KEY": ENV_KEY})
    assert rc == 2, err
    assert "error:" in err and MARK in err
    assert ENV_KEY not in err and ENV_KEY[5:20] not in err
    assert err.strip().endswith("NO-PYDANTIC")  # no config file: the light path


def test_a_key_only_the_config_file_holds_is_redacted(tmp_path: Path) -> None:
    config = tmp_path / "config" / "sembench" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[openai]\napi_key = "{FILE_KEY}"\n', encoding="utf-8")
    rc, err = _error_line(tmp_path, FILE_KEY, {})
    assert rc == 2, err
    assert "error:" in err and MARK in err
    assert FILE_KEY not in err and FILE_KEY[5:20] not in err
    assert err.strip().endswith("PYDANTIC")  # the config file is read, with its models

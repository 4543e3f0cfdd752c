"""The external tools the imports family needs: OpenJDK's `javac` and `java` (Debian openjdk-17-jdk-headless)."""

from __future__ import annotations

from core.tools import Tool

JAVAC = Tool(
    name="javac",
    executable="javac",
    package="openjdk-17-jdk-headless",
    version_args=("-version",),
    version_pattern=r"javac (\S+)",
    confine="tool",  # confined where bubblewrap runs (docs/sandbox.md)
    reads=("/etc/alternatives", "/etc/java-*"),  # /usr/bin/javac links through alternatives; the JDK's conf
    note="compiles the knowledge-base extractor and the compile service; checks snippets with imports",
)
JAVA = Tool(
    name="java",
    executable="java",
    package="openjdk-17-jdk-headless",
    version_args=("-version",),
    version_pattern=r'version "([^"]+)"',
    reads=("/etc/alternatives", "/etc/java-*"),  # when it runs confined (the compile service)
    note="runs the knowledge-base extractor and the long-lived compile service",
)

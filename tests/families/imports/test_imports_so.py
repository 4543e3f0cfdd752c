"""The SnR-style baseline on real Stack Overflow snippets (StatType-SO's ground truth as
released with iJTyper, converted into tests/families/imports/fixtures/so/stattype/; README there).

Before the change the baseline reached micro F1 0.90 on these 57 snippets (Hibernate recall 0.57): it
never looked at annotations (`@Entity`, `@Column`, `@XStreamAlias`: a third of Hibernate's imports), took
`java.awt.List` or `org.hibernate.mapping.List` for `List<String>`, and ranked Hibernate's own
`org.hibernate.annotations.Entity` above JPA's. The held-out part (`stattype-heldout/`) is not used here:
docs/imports-so.md reports it."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.families.imports.baseline import solve
from core.families.imports.extract import answer_imports
from core.families.imports.verify import score, score_wildcards

FIXTURES = Path(__file__).parent / "fixtures"

pytestmark = pytest.mark.javac

DEV = FIXTURES / "so" / "stattype"
LIBRARIES = ("hibernate", "jdk", "jodatime", "xstream")


def _micro(rows: list[dict]) -> tuple[float, float, float]:
    tp, fp, fn = (sum(r[k] for r in rows) for k in ("tp", "fp", "fn"))
    p, r = tp / (tp + fp), tp / (tp + fn)
    return p, r, 2 * p * r / (p + r)


@pytest.fixture(scope="module")
def scored(family) -> dict[str, list[dict]]:
    instances = family.import_files(DEV)
    by_lib: dict[str, list[dict]] = {}
    for inst in instances:
        got = answer_imports(family.extract(family.baseline_response(inst, 10))) or []
        by_lib.setdefault(inst.library, []).append(score(inst.expected(), got))
    return by_lib


def test_the_real_snippet_set_is_what_the_readme_says(family) -> None:
    dev = family.import_files(DEV)
    held = family.import_files(FIXTURES / "so" / "stattype-heldout")
    assert len(dev) == 57 and len(held) == 27
    assert {i.library for i in dev} == {i.library for i in held} == set(LIBRARIES)
    assert not {i.meta["file"] for i in dev} & {i.meta["file"] for i in held}  # disjoint parts
    assert all(i.meta["n_unresolved"] == 0 and i.expected() for i in dev + held)


def test_micro_f1_on_real_snippets_of_the_four_libraries(scored) -> None:
    """The regression guard at the figures reached: overall P 0.9801 R 0.9866 F1 0.9833 (295 right, 6
    extra, 4 missing), Hibernate F1 0.9674, Joda-Time 0.9692, the other two 1.0. Before the annotations:
    F1 0.9004, Hibernate 0.684 (recall 0.571), XStream 0.947. Joda-Time was 1.0 until the baseline took
    `java.util.Date` over `java.sql.Date` where nothing decides: iJTyper's fully qualified files, this
    set's source, name `java.sql.Date` in JodaTime21 and JodaTime22, StatType-SO's own import lines
    `java.util.Date` (and JodaTime21's original code, `dt = formatter.parse(..)`, compiles only with it;
    the released set with its import lines is test_baseline_on_the_released_import_lines)."""
    p, r, f = _micro([row for rows in scored.values() for row in rows])
    assert f >= 0.9833 - 1e-4 and r >= 0.9866 - 1e-4, (p, r, f)
    floors = {"hibernate": 0.9673, "jdk": 1.0, "jodatime": 0.9692, "xstream": 1.0}  # Hibernate: 0.96739
    for lib in LIBRARIES:
        lp, lr, lf = _micro(scored[lib])
        assert lf >= floors[lib] - 1e-9, (lib, lp, lr, lf)


def test_annotations_are_names_to_import_and_their_elements_constrain_them(kb) -> None:
    code = """public class Part {
    @Entity @Table(name = "parts")
    class P {
        @Id @GeneratedValue private Integer id;
        @ManyToOne(cascade = CascadeType.ALL, fetch = FetchType.LAZY) private P main;
        @Cache(usage = CacheConcurrencyStrategy.READ_WRITE) private java.util.Set<P> parts;
    }
}"""
    chosen = solve(code, kb, "hibernate").chosen
    # JPA's Entity and Table (both annotation types of the library's own jars, used with JPA's @Id);
    # CascadeType is JPA's because @ManyToOne's `cascade` element takes javax.persistence.CascadeType[]
    assert chosen["Entity"] == "javax.persistence.Entity" and chosen["Table"] == "javax.persistence.Table"
    assert chosen["CascadeType"] == "javax.persistence.CascadeType"
    assert chosen["FetchType"] == "javax.persistence.FetchType" and chosen["Id"] == "javax.persistence.Id"
    assert chosen["Cache"] == "org.hibernate.annotations.Cache"
    # an element only Hibernate's @Table has picks Hibernate's
    hib = solve('@Table(appliesTo = "t", indexes = {}) class T {}', kb, "hibernate").chosen
    assert hib["Table"] == "org.hibernate.annotations.Table"
    # XStream's annotations are found at all (they were ignored before)
    x = solve('@XStreamAlias("a") class A { @XStreamAsAttribute String t; }', kb, "xstream").chosen
    assert x == {"XStreamAlias": "com.thoughtworks.xstream.annotations.XStreamAlias",
                 "XStreamAsAttribute": "com.thoughtworks.xstream.annotations.XStreamAsAttribute"}


def test_type_arguments_need_a_generic_type(kb) -> None:
    code = "class Q { List<String> names; Collection<Integer> ids; List<?> any() { return null; } }"
    for library in ("hibernate", "xstream", "jdk"):
        chosen = solve(code, kb, library).chosen
        assert chosen == {"List": "java.util.List", "Collection": "java.util.Collection"}, library
    # without type arguments nothing says which List (Hibernate's own is taken for a Hibernate snippet)
    assert solve("class Q { List names; }", kb, "hibernate").chosen["List"] == "org.hibernate.mapping.List"


def test_the_baseline_stays_deterministic_on_real_snippets(family) -> None:
    instances = family.import_files(DEV)[:20]
    first = [family.baseline_response(i, 10) for i in instances]
    assert first == [family.baseline_response(i, 10) for i in instances]


# ---- StatType-SO as released, with its own import lines (fixtures/stattype-so; README there) ----------
RELEASED = FIXTURES / "stattype-so"


def test_the_released_set_is_what_the_readme_says(family) -> None:
    dev, held = family.import_files(RELEASED / "dev"), family.import_files(RELEASED / "heldout")
    assert len(dev) == 113 and len(held) == 53
    assert {i.library for i in dev} == {i.library for i in held} == set(LIBRARIES)
    assert len({i.id for i in dev + held}) == 166  # one id per snippet, the parts disjoint
    wildcards = [i for i in dev + held if any(e.endswith(".*") for e in i.expected())]
    assert len(wildcards) == 13  # the wildcards of the released import lines are kept


@pytest.fixture(scope="module")
def released_dev(family) -> dict[str, list[dict]]:
    by_lib: dict[str, list[dict]] = {}
    for inst in family.import_files(RELEASED / "dev"):
        got = answer_imports(family.extract(family.baseline_response(inst, 10))) or []
        by_lib.setdefault(inst.library, []).append(score_wildcards(inst.expected(), got))
    return by_lib


def test_baseline_on_the_released_import_lines(released_dev) -> None:
    """The worked-on part (113 snippets) scored with wildcards read as packages, at the figures reached:
    F1 0.9497 (557 right, 4 extra, 55 missing: nearly all names of jars the knowledge base does not hold,
    such as Hibernate Shards, Struts, log4j, JUnit, Android, or imports the snippet never uses); read
    literally 0.8971. Before `v = e` constraints and the JDK tie-break by use: 0.9446, Joda-Time 0.9675
    (`java.sql.Date` for `java.util.Date` three times)."""
    p, r, f = _micro([row for rows in released_dev.values() for row in rows])
    assert f >= 0.9497 - 1e-4, (p, r, f)
    floors = {"hibernate": 0.9060, "jdk": 1.0, "jodatime": 0.9919, "xstream": 0.9392}
    for lib in LIBRARIES:
        lp, lr, lf = _micro(released_dev[lib])
        assert lf >= floors[lib] - 1e-4, (lib, lp, lr, lf)
    literal = [(row["tp_literal"], row["fp_literal"], row["fn_literal"]) for rows in released_dev.values()
               for row in rows]
    tp, fp, fn = (sum(x[i] for x in literal) for i in range(3))
    assert tp / (tp + 0.5 * (fp + fn)) < f, "the wildcards read literally score lower"


def test_an_assignment_to_a_declared_variable_constrains_its_type(kb) -> None:
    code = """class A { void m() throws Exception {
        DateFormat f = new SimpleDateFormat("yyyy");
        Date d = null;
        d = f.parse("2011");
    } }"""
    chosen = solve(code, kb, "jodatime").chosen
    assert chosen["Date"] == "java.util.Date"  # DateFormat.parse returns java.util.Date
    step = [c for c in solve(code, kb, "jodatime").analysis.constraints if c.kind == "assign"]
    assert step and "assignable" in step[0].text


def test_a_jdk_tie_goes_to_the_type_the_platform_uses_more(kb) -> None:
    assert kb.mentions["java.util.Date"] > kb.mentions["java.sql.Date"] > 0
    assert solve("class A { Date created; }", kb, "hibernate").chosen["Date"] == "java.util.Date"
    # a package another name of the snippet uses still comes first
    with_sql = solve("class A { Date created; Blob data; }", kb, "hibernate").chosen
    assert with_sql == {"Date": "java.sql.Date", "Blob": "java.sql.Blob"}

#!/usr/bin/python3
"""Checks the OPDS feeds of a published tree against what the specifications require, and prints
what a reader sees of every corpus as one JSON object on stdout (exit 1 and the problems on stderr
otherwise). Run with Debian's /usr/bin/python3: python3-jsonschema, python3-feedparser.

  scripts/check-opds.py PUBLIC_DIR SCHEMA_DIR

OPDS 2.0 (drafts.opds.io/opds-2.0): every *.opds.json validates against the OPDS feed schema (and
through it the Readium Web Publication Manifest's link and metadata schemas); a feed has a title,
a self link and a navigation, publications or groups collection; each navigation link has a title;
each publication has an acquisition link. OPDS 1.2 (specs.opds.io/opds-1.2, on Atom RFC 4287):
every *.atom parses in feedparser without error; a feed has an id, a title, updated, an author,
self and start links of the OPDS types; a navigation feed's entries link to acquisition feeds; an
acquisition feed's entries have an id, a title, updated and an acquisition link with a type and a
length. Both: the `all` series, followed through its `next` links, lists every corpus of the signed
catalog exactly once, as one of its catalog entries (the test says which version it expects), with
that entry's bundle, size, language, description, access (open-access for free corpora, the
generic acquisition relation for entitled ones) and a date no later than the catalog's issue time; each language series lists exactly the corpora of
its language; no page holds more than its itemsPerPage.
"""
import json, os, re, sys
import feedparser, jsonschema

OPEN = "http://opds-spec.org/acquisition/open-access"
GENERIC = "http://opds-spec.org/acquisition"
ATOM_NAV = "application/atom+xml;profile=opds-catalog;kind=navigation"
ATOM_ACQ = "application/atom+xml;profile=opds-catalog;kind=acquisition"
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")
problems = []

def problem(text):
    problems.append(text)

def xml_text(s):
    """What XML 1.0 can carry of s (§2.2): the publisher drops the rest."""
    return "".join(c for c in s if c in "\t\n\r" or (ord(c) >= 0x20 and c not in "\ufffe\uffff"))

def python_patterns(node):
    """The schemas' patterns are ECMA-262 regular expressions (JSON Schema's dialect); Python's
    `re` spells a named group `(?P<name>...)` where ECMA writes `(?<name>...)`."""
    if isinstance(node, dict):
        return {k: (re.sub(r"\(\?<(?=[A-Za-z])", "(?P<", v) if k == "pattern" and isinstance(v, str) else
                    {re.sub(r"\(\?<(?=[A-Za-z])", "(?P<", pk): python_patterns(pv) for pk, pv in v.items()} if k == "patternProperties" else
                    python_patterns(v))
                for k, v in node.items()}
    if isinstance(node, list):
        return [python_patterns(v) for v in node]
    return node

def load_schemas(schema_dir):
    store = {}
    for folder, _, names in os.walk(schema_dir):
        for name in names:
            if name.endswith(".schema.json"):
                with open(os.path.join(folder, name)) as f:
                    s = python_patterns(json.load(f))
                store[s["$id"]] = s
    return store

def check_json(tree, store):
    feed_schema = store["https://drafts.opds.io/schema/feed.schema.json"]
    resolver = jsonschema.RefResolver.from_schema(feed_schema, store=store)
    validator = jsonschema.Draft7Validator(feed_schema, resolver=resolver)
    feeds = {}
    folder = os.path.join(tree, "opds")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".opds.json"):
            continue
        with open(os.path.join(folder, name), "rb") as f:
            doc = json.loads(f.read().decode("utf-8"))
        feeds[name] = doc
        for e in validator.iter_errors(doc):
            problem(f"{name}: schema: {e.message} at {list(e.absolute_path)}")
        if not doc.get("metadata", {}).get("title"):
            problem(f"{name}: no metadata title")
        if not RFC3339.match(doc.get("metadata", {}).get("modified", "")):
            problem(f"{name}: metadata.modified is not an RFC 3339 date-time")
        if not any(l.get("rel") == "self" for l in doc.get("links", [])):
            problem(f"{name}: no self link")
        if not any(k in doc for k in ("navigation", "publications", "groups")):
            problem(f"{name}: no navigation, publications or groups")
        for l in doc.get("navigation", []):
            if not l.get("title"):
                problem(f"{name}: a navigation link without a title")
        per_page = doc["metadata"].get("itemsPerPage")
        if per_page is not None and len(doc.get("publications", [])) > per_page:
            problem(f"{name}: {len(doc['publications'])} publications on a page of {per_page}")
        for p in doc.get("publications", []):
            rels = [l.get("rel") for l in p["links"]]
            if not any(r in (OPEN, GENERIC) for r in rels):
                problem(f"{name}: publication {p['metadata'].get('identifier')} has no acquisition link")
            if not RFC3339.match(p["metadata"].get("modified", "")):
                problem(f"{name}: publication modified is not an RFC 3339 date-time")
    return feeds

def series_json(feeds, first):
    """The publications of a series, following `next` from its first page."""
    out, name, seen = [], first, set()
    while name:
        if name in seen or name not in feeds:
            problem(f"json series from {first}: broken next link to {name}")
            break
        seen.add(name)
        doc = feeds[name]
        out += doc.get("publications", [])
        name = next((l["href"] for l in doc["links"] if l.get("rel") == "next"), None)
    return out

def check_atom(tree):
    feeds = {}
    folder = os.path.join(tree, "opds")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".atom"):
            continue
        d = feedparser.parse(os.path.join(folder, name))
        feeds[name] = d
        if d.bozo:
            problem(f"{name}: feedparser: {d.bozo_exception}")
            continue
        f = d.feed
        for key in ("id", "title", "updated"):
            if not f.get(key):
                problem(f"{name}: feed has no {key}")
        if not f.get("author_detail", {}).get("name"):
            problem(f"{name}: feed has no author")
        rels = {l.get("rel"): l for l in f.get("links", [])}
        if "self" not in rels or "start" not in rels:
            problem(f"{name}: feed lacks a self or start link")
        kind = rels.get("self", {}).get("type")
        if rels.get("start", {}).get("type") != ATOM_NAV:
            problem(f"{name}: start link is not a navigation feed")
        for e in d.entries:
            for key in ("id", "title", "updated"):
                if not e.get(key):
                    problem(f"{name}: an entry has no {key}")
            links = e.get("links", [])
            if kind == ATOM_NAV:
                if not any(l.get("type") == ATOM_ACQ and l.get("href", "").endswith(".atom") for l in links):
                    problem(f"{name}: navigation entry {e.get('id')} links to no acquisition feed")
            elif kind == ATOM_ACQ:
                acq = [l for l in links if l.get("rel") in (OPEN, GENERIC)]
                if not acq or not all(l.get("type") and l.get("length") for l in acq):
                    problem(f"{name}: entry {e.get('id')} has no acquisition link with a type and a length")
            else:
                problem(f"{name}: self link type {kind!r} is neither OPDS kind")
        per_page = d.feed.get("opensearch_itemsperpage")
        if per_page and len(d.entries) > int(per_page):
            problem(f"{name}: {len(d.entries)} entries on a page of {per_page}")
    return feeds

def series_atom(feeds, first):
    out, name, seen = [], first, set()
    while name:
        if name in seen or name not in feeds:
            problem(f"atom series from {first}: broken next link to {name}")
            break
        seen.add(name)
        d = feeds[name]
        out += d.entries
        name = next((l["href"] for l in d.feed.get("links", []) if l.get("rel") == "next"), None)
    return out

def urn(identifier):
    """(corpus id, version) of `urn:corpussync:<catalog>:<corpus>:<version>`."""
    parts = identifier.split(":")
    return parts[3], ":".join(parts[4:])

def main():
    tree, schema_dir = sys.argv[1], sys.argv[2]
    with open(os.path.join(tree, "catalog.json")) as f:
        pointer = json.load(f)
    with open(os.path.join(tree, pointer["path"])) as f:
        catalog = json.load(f)
    # A corpus may have several entries (channels, a rollout): the feeds show one of them, named
    # by the version in the publication's identifier.
    entries = {(c["id"], c["version"]): c for c in catalog["corpora"]}
    corpora = {}
    json_feeds = check_json(tree, load_schemas(schema_dir))
    atom_feeds = check_atom(tree)
    seen = {"json": {}, "atom": {}}

    for p in series_json(json_feeds, "all-1.opds.json"):
        cid, version = urn(p["metadata"]["identifier"])
        if cid in seen["json"]:
            problem(f"json: {cid} listed twice")
        c = entries.get((cid, version))
        if c is None:
            problem(f"json: {cid} {version} is not in the catalog")
            continue
        corpora[cid] = c
        link = p["links"][0]
        want_rel = OPEN if c["access"] == "free" else GENERIC
        if (link["rel"], link["href"], link["size"]) != (want_rel, "../" + c["bundle"]["path"], c["bundle"]["size"]):
            problem(f"json: {cid} links {link} for bundle {c['bundle']} ({c['access']})")
        m = p["metadata"]
        # A page is dated by the catalog in which it last changed (docs/operations.md "Serving the
        # OPDS feeds"): never after this one. Both are the publisher's `YYYY-MM-DDTHH:MM:SSZ`.
        if (m["language"], m["description"]) != (c["language"], c["description"]) or m["modified"] > catalog["issued"]:
            problem(f"json: {cid} metadata {m} differs from the catalog")
        seen["json"][cid] = {"title": m["title"], "access": c["access"], "rel": link["rel"], "version": version}

    for e in series_atom(atom_feeds, "all-1.atom"):
        cid, version = urn(e["id"])
        if cid in seen["atom"]:
            problem(f"atom: {cid} listed twice")
        c = entries.get((cid, version))
        if c is None:
            problem(f"atom: {cid} {version} is not in the catalog")
            continue
        if corpora.get(cid) is not c:
            problem(f"atom: {cid} {version} is not the version the JSON feed shows")
        acq = [l for l in e["links"] if l.get("rel") in (OPEN, GENERIC)]
        want_rel = OPEN if c["access"] == "free" else GENERIC
        if len(acq) != 1 or (acq[0]["rel"], acq[0]["href"], int(acq[0]["length"])) != (want_rel, "../" + c["bundle"]["path"], c["bundle"]["size"]):
            problem(f"atom: {cid} links {acq} for bundle {c['bundle']} ({c['access']})")
        if e.get("dcterms_language") != xml_text(c["language"]) or e.get("summary") != xml_text(c["description"]):
            problem(f"atom: {cid} language or summary differs from the catalog")
        seen["atom"][cid] = {"title": e["title"], "access": c["access"], "rel": acq[0]["rel"] if acq else None, "version": version}

    for fmt in ("json", "atom"):
        missing = {cid for cid, _ in entries} - set(seen[fmt])
        if missing:
            problem(f"{fmt}: the all series lacks {sorted(missing)}")

    # Navigation by language: each language's series holds exactly its corpora.
    root = json_feeds.get("root.opds.json", {})
    languages = {}
    for l in root.get("navigation", []):
        if l["href"].startswith("lang-"):
            ids = sorted(p["metadata"]["identifier"].split(":")[3] for p in series_json(json_feeds, l["href"]))
            atom_ids = sorted(e["id"].split(":")[3] for e in series_atom(atom_feeds, l["href"].replace(".opds.json", ".atom")))
            langs = {corpora[i]["language"] for i in ids}
            if len(langs) != 1 or ids != atom_ids or ids != sorted(i for i, c in corpora.items() if c["language"] in langs):
                problem(f"language series {l['href']}: {ids} / {atom_ids}")
            languages[langs.pop() if len(langs) == 1 else l["href"]] = ids
    if sorted(languages) != sorted({c["language"] for c in corpora.values()}):
        problem(f"root navigation covers languages {sorted(languages)}")

    if problems:
        print("\n".join(problems), file=sys.stderr)
        sys.exit(1)
    json.dump({"json": seen["json"], "atom": seen["atom"], "languages": languages,
               "files": sorted(list(json_feeds) + list(atom_feeds))}, sys.stdout, ensure_ascii=False, sort_keys=True)

main()

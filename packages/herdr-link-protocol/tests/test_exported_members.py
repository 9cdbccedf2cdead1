import herdr_link_protocol


def test_all_lists_exactly_the_public_names():
    public = {name for name in vars(herdr_link_protocol) if not name.startswith("_")}
    assert set(herdr_link_protocol.__all__) == public


def test_every_exported_name_is_documented_where_it_is_defined():
    for name in herdr_link_protocol.__all__:
        value = getattr(herdr_link_protocol, name)
        if callable(value) and hasattr(value, "__module__") and value.__module__.startswith("herdr_link_protocol"):
            assert value.__doc__, name


def test_the_package_imports_no_io_library():
    import ast
    from pathlib import Path

    banned = {"anyio", "asyncio", "subprocess", "socket", "os", "shutil", "io", "pathlib"}
    source_dir = Path(herdr_link_protocol.__file__).parent
    for path in source_dir.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                roots = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                roots = {node.module.split(".")[0]}
            else:
                continue
            assert not roots & banned, f"{path.name} imports {roots & banned}"

from mobifrag.report.markdown import markdown_table


def test_cells_are_written_as_given_and_columns_aligned():
    lines = markdown_table(("claim", "measured"), [("a", "1.50"), ("long-id", 7)])
    assert lines == [
        "| claim   | measured   |",
        "|---------|------------|",
        "| a       | 1.50       |",
        "| long-id | 7          |",
    ]


def test_an_escaped_pipe_stays_in_its_cell():
    (_, _, row) = markdown_table(("band",), [("a \\| b",)])
    assert row == "| a \\| b |"


def test_a_table_without_rows_is_its_header():
    assert markdown_table(("a", "b"), []) == ["| a   | b   |", "|-----|-----|"]

import Testing
@testable import CorpusPublisher

@Suite struct IngestMarkdownTests {
    @Test func sectionsFollowTheHeadingPath() {
        let md = """
        # Field guide

        Intro paragraph.

        ## Install

        General notes.

        ### Linux

        Use the package manager.
        Second line of the same paragraph.

        ### macOS

        Use the installer.

        ## Usage

        Run it.
        """
        let doc = IngestMarkdown.document(path: "guide/install.md", text: md)
        #expect(doc.title == "Field guide")
        #expect(doc.sections.map(\.path) == ["", "Install", "Install > Linux", "Install > macOS", "Usage"])
        #expect(doc.sections[2].paragraphs == ["Use the package manager. Second line of the same paragraph."])
    }

    @Test func titleFallsBackToTheFileName() {
        let doc = IngestMarkdown.document(path: "notes/tide-tables.md", text: "## Only a subheading\n\nText.")
        #expect(doc.title == "tide-tables")
        #expect(doc.sections.map(\.path) == ["Only a subheading"])
    }

    @Test(arguments: [
        ("Some **bold** and *italic* and __strong__ words", "Some bold and italic and strong words"),
        ("A [link](https://example.com/x) and ![an image](img.png)", "A link and an image"),
        ("Reference [style][ref] link", "Reference style link"),
        ("Call `make demo` now", "Call make demo now"),
        ("snake_case_name and 2 * 3 stay", "snake_case_name and 2 * 3 stay"),
        ("See <https://example.org>", "See https://example.org"),
        ("Escaped \\*stars\\*", "Escaped *stars*"),
    ])
    func inlineMarkupIsStripped(input: String, expected: String) {
        #expect(IngestMarkdown.stripInline(input) == expected)
    }

    @Test func codeFencesAreKeptAsTextAndHideHeadings() {
        let md = """
        # Doc

        ```sh
        # not a heading
        make demo
        ```

        After.
        """
        let doc = IngestMarkdown.document(path: "a.md", text: md)
        #expect(doc.sections.count == 1)
        #expect(doc.sections[0].paragraphs == ["# not a heading\nmake demo", "After."])
    }

    @Test func listsKeepOneItemPerLineAndRulesAndDefinitionsGo() {
        let md = """
        Setext title
        ============

        - first item
          continues here
        - second item

        ---

        [ref]: https://example.com

        Sub
        ---
        Body.
        """
        let doc = IngestMarkdown.document(path: "a.md", text: md)
        #expect(doc.title == "Setext title")
        #expect(doc.sections.map(\.path) == ["", "Sub"])
        #expect(doc.sections[0].paragraphs == ["- first item continues here\n- second item"])
        #expect(doc.sections[1].paragraphs == ["Body."])
    }

    @Test func atxClosingHashesAreDropped() {
        #expect(IngestMarkdown.atxHeading("## Install ##")?.1 == "Install")
        #expect(IngestMarkdown.atxHeading("#hashtag") == nil)
        #expect(IngestMarkdown.atxHeading("####### seven")  == nil)
    }
}

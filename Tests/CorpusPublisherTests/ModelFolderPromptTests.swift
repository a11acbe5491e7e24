import Foundation
import Testing
import CorpusFormat
import CorpusEngine
import CorpusTestSupport
@testable import CorpusPublisher

/// A publisher's model folder for a known id: prompts declared in catalog.json fill what the
/// folder lacks and go into the artifact's settings; a folder that names other prompts, or whose
/// shape is another known model's, is refused with one line, the folder untouched.
@Suite struct ModelFolderPromptTests {
    static let bgePrompt = "Represent this sentence for searching relevant passages: "

    @Test(.enabled(if: RandomModels.available, "\(RandomModels.absentMessage)"))
    func declaredPromptsFillWhatTheFolderLacks() throws {
        let bge = try ModelFolder.load(id: "bge-small-en-v1.5", folder: try RandomModels.folder(.bgeSmall, .f16),
                                       prompts: ModelFolder.DeclaredPrompts(query: Self.bgePrompt))
        #expect(bge.embedder.settings.queryPrompt == Self.bgePrompt && bge.embedder.settings.pooling == .cls)
        // The digest covers the settings: the same folder without the prompt is another model.
        let bare = try ModelFolder.load(id: "bge-small-en-v1.5", folder: try RandomModels.folder(.bgeSmall, .f16))
        #expect(bare.digest != bge.digest)
        // A declared prompt equal to the folder's own is accepted.
        let arctic = try ModelFolder.load(id: "snowflake-arctic-embed-m-v1.5", folder: try RandomModels.folder(.arcticEmbedM, .bf16),
                                          prompts: ModelFolder.DeclaredPrompts(query: "query: "))
        #expect(arctic.embedder.settings.queryPrompt == "query: " && arctic.embedder.dimension == 768)
    }

    @Test(.enabled(if: RandomModels.available, "\(RandomModels.absentMessage)"))
    func otherPromptsOrAnotherModelsShapeAreRefused() throws {
        let arctic = try RandomModels.folder(.arcticEmbedM, .bf16)
        let before = DirectorySnapshot(arctic)
        #expect(throws: PublisherError.invalidModel(folder: arctic, embedder: "snowflake-arctic-embed-m-v1.5",
                                                    reason: #"its query prompt "query: " is not the declared "search: ""#)) {
            try ModelFolder.load(id: "snowflake-arctic-embed-m-v1.5", folder: arctic, prompts: ModelFolder.DeclaredPrompts(query: "search: "))
        }
        #expect(throws: PublisherError.invalidModel(folder: arctic, embedder: "bge-small-en-v1.5",
                                                    reason: "config.json says hidden_size 768, bge-small-en-v1.5 has 384")) {
            try ModelFolder.load(id: "bge-small-en-v1.5", folder: arctic)
        }
        let bge = try RandomModels.folder(.bgeSmall, .f32)
        #expect(throws: PublisherError.invalidModel(folder: bge, embedder: "all-MiniLM-L6-v2",
                                                    reason: "config.json says num_hidden_layers 12, all-MiniLM-L6-v2 has 6")) {
            try ModelFolder.load(id: "all-MiniLM-L6-v2", folder: bge)
        }
        #expect(DirectorySnapshot(arctic) == before)
    }
}

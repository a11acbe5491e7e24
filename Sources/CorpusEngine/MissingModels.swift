import Foundation
import CorpusFormat

extension CorpusLibrary {
    /// The installed corpora (`remote/id`) among `names` (all when empty) whose manifest names an
    /// embedder model whose folder is absent from this home (an imported bundle, say). The CLI and
    /// the search server both search these by words only, so the two rank alike; a model folder
    /// that is present but wrong is still refused by the engine.
    public func corporaMissingTheirModel(selecting names: [String]) -> [String] {
        refresh(selecting: names).compactMap { entry -> String? in
            guard case let .success(corpus) = entry.result,
                  names.isEmpty || names.contains(corpus.id) || names.contains(corpus.name),
                  let digest = corpus.manifest.embedder.modelDigest, EmbedderManifest.isValidID(corpus.manifest.embedder.id),
                  !FileIO.exists(layout.embedderDirectory(id: corpus.manifest.embedder.id, digest: digest)) else { return nil }
            return corpus.name
        }
    }

    /// The ids of the corpora installed right now that open.
    public func installedIDs() -> Set<String> {
        Set(refresh().compactMap { try? $0.result.get().id })
    }
}

import CorpusFormat
import Foundation

/// The BERT encoder forward pass with CLS or mean pooling, for a batch of token-id sequences.
///
/// The sequences of a batch are packed end to end (no padding rows): every projection and
/// feed-forward layer acts on each token on its own, so one matrix multiply covers all the
/// batch's tokens; only attention looks across tokens, and it runs per sequence over that
/// sequence's own tokens. This is exactly what the padded-and-masked computation gives for
/// the real tokens (masked keys get zero weight there), without computing the padding.
struct BERTEncoder: Sendable {
    let weights: BERTWeights
    /// Scratch kept between calls (`ScratchPool`).
    let scratchPool = ScratchPool()

    /// Scratch buffers for one batch: a running call has its own, so concurrent calls share nothing.
    struct Scratch {
        /// The most tokens, and the longest sequence, these buffers hold.
        let tokens, longest: Int
        let hidden, qkv, context, intermediate, scores: UnsafeMutableBufferPointer<Float>

        init(tokens: Int, longest: Int, c: BERTConfiguration) {
            self.tokens = tokens
            self.longest = longest
            hidden = .allocate(capacity: tokens * c.hidden)
            qkv = .allocate(capacity: tokens * 3 * c.hidden)
            context = .allocate(capacity: tokens * c.hidden)
            intermediate = .allocate(capacity: min(tokens, BERTEncoder.feedForwardRows) * c.intermediate)
            scores = .allocate(capacity: max(longest * longest, Self.attentionScratch(longest: longest, c: c)))
        }

        static func attentionScratch(longest: Int, c: BERTConfiguration) -> Int {
            #if !canImport(Accelerate) && arch(x86_64)
            if EncoderSIMD.available { return EncoderSIMD.attentionScratch(tokens: longest, headWidth: c.headWidth) }
            #endif
            return 0
        }

        func fits(tokens: Int, longest: Int) -> Bool { tokens <= self.tokens && longest <= self.longest }

        func deallocate() {
            for b in [hidden, qkv, context, intermediate, scores] { b.deallocate() }
        }
    }

    /// One pooled vector per sequence, unit length when `normalize`. Sequences must be non-empty,
    /// at most `maxPositions` long, with ids below the vocabulary size. Each matrix product with
    /// the weights is split among `threads` threads (`EncoderKernels.linear`).
    func encode(_ sequences: [[Int32]], pooling: EncoderSettings.Pooling, normalize: Bool = true, threads: Int = 1) -> [[Float]] {
        let c = weights.configuration
        let h = c.hidden
        let lengths = sequences.map(\.count)
        let offsets = lengths.reduce(into: [0]) { $0.append($0.last! + $1) }
        let total = offsets.last!
        guard total > 0 else { return [] }
        precondition(lengths.allSatisfy { 0 < $0 && $0 <= c.maxPositions })
        let scratch = scratchPool.take(tokens: total, longest: lengths.max()!, c: c)
        defer { scratchPool.give(scratch) }
        let x = scratch.hidden.baseAddress!

        // Embeddings: word + position + token type 0, then LayerNorm.
        for (s, ids) in sequences.enumerated() {
            for (position, id) in ids.enumerated() {
                precondition(id >= 0 && Int(id) < c.vocabularySize)
                let row = x + (offsets[s] + position) * h
                let word = weights.wordEmbeddings + Int(id) * h
                let pos = weights.positionEmbeddings + position * h
                for j in 0..<h { row[j] = word[j] + pos[j] + weights.tokenTypeEmbeddings[j] }
            }
        }
        EncoderKernels.addLayerNorm(x, residual: nil, rows: total, width: h,
                                   gamma: weights.embeddingNormGamma, beta: weights.embeddingNormBeta,
                                   eps: c.layerNormEpsilon, into: x)

        for layer in weights.layers {
            self.layer(layer, scratch: scratch, offsets: offsets, c: c, threads: threads)
        }

        return sequences.indices.map { s in
            // CLS pooling is the first token's row; mean pooling averages them all.
            EncoderKernels.pool(x + offsets[s] * h, rows: pooling == .cls ? 1 : lengths[s], width: h, normalize: normalize)
        }
    }

    private func layer(_ layer: BERTWeights.Layer, scratch: Scratch, offsets: [Int], c: BERTConfiguration, threads: Int) {
        let h = c.hidden, dh = c.headWidth
        let total = offsets.last!
        let x = scratch.hidden.baseAddress!
        let qkv = scratch.qkv.baseAddress!
        let context = scratch.context.baseAddress!
        let inter = scratch.intermediate.baseAddress!
        let scores = scratch.scores.baseAddress!

        EncoderKernels.linear(x, rows: total, inFeatures: h, weight: layer.qkvWeight, bias: layer.qkvBias,
                             outFeatures: 3 * h, into: qkv, threads: threads)

        // Self-attention, per sequence and head: softmax(Q·Kᵀ/√d)·V, written to that head's columns.
        let scale = 1 / Float(dh).squareRoot()
        for s in 0..<(offsets.count - 1) {
            let n = offsets[s + 1] - offsets[s]
            let base = qkv + offsets[s] * 3 * h
            #if !canImport(Accelerate) && arch(x86_64)
            if EncoderSIMD.available {
                for head in 0..<c.heads {
                    let q = base + head * dh
                    EncoderSIMD.attentionHead(tokens: n, headWidth: dh, q: q, k: q + h, v: q + 2 * h, stride: 3 * h, scale: scale,
                                              into: context + offsets[s] * h + head * dh, outStride: h, scratch: scores)
                }
                continue
            }
            #endif
            for head in 0..<c.heads {
                let q = base + head * dh, k = q + h, v = q + 2 * h
                EncoderKernels.gemm(m: n, n: n, k: dh, alpha: scale, a: q, lda: 3 * h, b: k, ldb: 3 * h,
                                   transposeB: true, beta: 0, c: scores, ldc: n)
                EncoderKernels.softmaxRows(scores, rows: n, width: n, stride: n)
                EncoderKernels.gemm(m: n, n: dh, k: n, alpha: 1, a: scores, lda: n, b: v, ldb: 3 * h,
                                   transposeB: false, beta: 0, c: context + offsets[s] * h + head * dh, ldc: h)
            }
        }

        // The attention output and the feed-forward output are each added by sgemm onto the rows
        // they are the residual of (no bias), and their bias is added by the LayerNorm that reads
        // those rows anyway: no pass copying the bias into every output row, and no separate
        // output matrix for the LayerNorm to read back with the residual.
        EncoderKernels.linear(context, rows: total, inFeatures: h, weight: layer.attentionOutWeight,
                             bias: nil, outFeatures: h, into: x, threads: threads)
        EncoderKernels.addLayerNorm(x, residual: nil, bias: layer.attentionOutBias, rows: total, width: h,
                                   gamma: layer.attentionNormGamma, beta: layer.attentionNormBeta,
                                   eps: c.layerNormEpsilon, into: x)

        // The feed-forward layer a block of rows at a time: the block's intermediate values are
        // read back by GELU and the second product, and its rows by the LayerNorm, while still in
        // cache. The second product reads the intermediate values only, so it may overwrite the
        // block's rows of `x`, which the first has finished reading.
        for low in stride(from: 0, to: total, by: Self.feedForwardRows) {
            let rows = min(Self.feedForwardRows, total - low)
            let block = x + low * h
            EncoderKernels.linear(block, rows: rows, inFeatures: h, weight: layer.intermediateWeight,
                                 bias: layer.intermediateBias, outFeatures: c.intermediate, into: inter, threads: threads)
            EncoderKernels.gelu(inter, count: rows * c.intermediate)
            EncoderKernels.linear(inter, rows: rows, inFeatures: c.intermediate, weight: layer.outputWeight,
                                 bias: nil, outFeatures: h, into: block, threads: threads)
            EncoderKernels.addLayerNorm(block, residual: nil, bias: layer.outputBias, rows: rows, width: h,
                                       gamma: layer.outputNormGamma, beta: layer.outputNormBeta,
                                       eps: c.layerNormEpsilon, into: block)
        }
    }

    /// Rows of the feed-forward layer done at a time (see `layer`).
    static let feedForwardRows = 512

    /// Floating-point operations (multiply and add counted apart) of the matrix multiplies
    /// of one encoder pass over sequences of these lengths: what GFLOP/s figures divide.
    static func flops(lengths: [Int], configuration c: BERTConfiguration) -> Double {
        let h = Double(c.hidden), i = Double(c.intermediate)
        var total = 0.0
        for n in lengths.map(Double.init) {
            let projections = 2 * n * h * (3 * h + h + 2 * i)
            let attention = 2 * 2 * n * n * h
            total += Double(c.layers) * (projections + attention)
        }
        return total
    }
}

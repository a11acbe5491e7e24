internal import CSQLite

extension SQLiteError {
    /// An SQLite result code (sqlite.org/rescode.html): a primary code in the low 8 bits, an
    /// extended code adding detail above them (`SQLITE_CONSTRAINT_UNIQUE` is 19 | 8 << 8).
    ///
    /// As a `switch` pattern (`~=`), a primary code matches itself and each of its extended codes,
    /// an extended code only itself: `case .constraint` catches every constraint failure,
    /// `case .constraintUnique` only that one.
    public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int32

        public init(rawValue: Int32) { self.rawValue = rawValue }

        public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }
        public var isPrimary: Bool { self == primary }

        public static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
            pattern.isPrimary ? pattern == code.primary : pattern == code
        }

        /// `SQLITE_CONSTRAINT_UNIQUE`; for an extended code without a name here, its primary
        /// code's name and its number (`SQLITE_IOERR extended 522`).
        public var description: String {
            if let name = Self.names[self] { return name }
            let primaryName = Self.names[primary] ?? "SQLite code \(primary.rawValue)"
            return isPrimary ? primaryName : "\(primaryName) extended \(rawValue)"
        }

        public static let ok = ResultCode(rawValue: SQLITE_OK)
        public static let error = ResultCode(rawValue: SQLITE_ERROR)
        public static let `internal` = ResultCode(rawValue: SQLITE_INTERNAL)
        public static let permission = ResultCode(rawValue: SQLITE_PERM)
        public static let abort = ResultCode(rawValue: SQLITE_ABORT)
        public static let busy = ResultCode(rawValue: SQLITE_BUSY)
        public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
        public static let noMemory = ResultCode(rawValue: SQLITE_NOMEM)
        public static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
        public static let interrupt = ResultCode(rawValue: SQLITE_INTERRUPT)
        public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
        public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
        public static let notFound = ResultCode(rawValue: SQLITE_NOTFOUND)
        public static let full = ResultCode(rawValue: SQLITE_FULL)
        public static let cannotOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
        public static let `protocol` = ResultCode(rawValue: SQLITE_PROTOCOL)
        public static let schema = ResultCode(rawValue: SQLITE_SCHEMA)
        public static let tooBig = ResultCode(rawValue: SQLITE_TOOBIG)
        public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
        public static let mismatch = ResultCode(rawValue: SQLITE_MISMATCH)
        public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
        public static let authorization = ResultCode(rawValue: SQLITE_AUTH)
        public static let range = ResultCode(rawValue: SQLITE_RANGE)
        public static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)
        public static let row = ResultCode(rawValue: SQLITE_ROW)
        public static let done = ResultCode(rawValue: SQLITE_DONE)

        public static let constraintUnique = ResultCode(rawValue: SQLITE_CONSTRAINT | 8 << 8)
        public static let constraintPrimaryKey = ResultCode(rawValue: SQLITE_CONSTRAINT | 6 << 8)
        public static let constraintNotNull = ResultCode(rawValue: SQLITE_CONSTRAINT | 5 << 8)
        public static let constraintForeignKey = ResultCode(rawValue: SQLITE_CONSTRAINT | 3 << 8)

        private static let names: [ResultCode: String] = [
            .ok: "SQLITE_OK", .error: "SQLITE_ERROR", .internal: "SQLITE_INTERNAL", .permission: "SQLITE_PERM",
            .abort: "SQLITE_ABORT", .busy: "SQLITE_BUSY", .locked: "SQLITE_LOCKED", .noMemory: "SQLITE_NOMEM",
            .readOnly: "SQLITE_READONLY", .interrupt: "SQLITE_INTERRUPT", .ioError: "SQLITE_IOERR", .corrupt: "SQLITE_CORRUPT",
            .notFound: "SQLITE_NOTFOUND", .full: "SQLITE_FULL", .cannotOpen: "SQLITE_CANTOPEN", .protocol: "SQLITE_PROTOCOL",
            .schema: "SQLITE_SCHEMA", .tooBig: "SQLITE_TOOBIG", .constraint: "SQLITE_CONSTRAINT", .mismatch: "SQLITE_MISMATCH",
            .misuse: "SQLITE_MISUSE", .authorization: "SQLITE_AUTH", .range: "SQLITE_RANGE", .notADatabase: "SQLITE_NOTADB",
            .row: "SQLITE_ROW", .done: "SQLITE_DONE",
            .constraintUnique: "SQLITE_CONSTRAINT_UNIQUE", .constraintPrimaryKey: "SQLITE_CONSTRAINT_PRIMARYKEY",
            .constraintNotNull: "SQLITE_CONSTRAINT_NOTNULL", .constraintForeignKey: "SQLITE_CONSTRAINT_FOREIGNKEY",
        ]
    }
}

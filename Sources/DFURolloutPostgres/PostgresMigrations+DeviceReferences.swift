extension PostgresMigrations {
    /// A device's rollout and package checked once per statement instead of once per row.
    ///
    /// `rollout create` inserts every device of a rollout in one statement; the two foreign keys
    /// on `devices` ran a lookup per row, about half of the server's time for 100,000 devices
    /// (docs/benchmarks.md). A statement trigger reads the inserted rows as one table and refuses
    /// the statement when any names a rollout or a package the store does not have, with the
    /// foreign-key error's code. Only inserts need it: no role may update a device's rollout or
    /// package, and nothing deletes rollouts or packages.
    static let deviceReferences: [String] = [
        "ALTER TABLE devices DROP CONSTRAINT devices_rollout_id_fkey",
        "ALTER TABLE devices DROP CONSTRAINT devices_rollout_id_package_sha256_fkey",
        """
        CREATE FUNCTION devices_check_references() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF EXISTS (
                SELECT FROM (SELECT DISTINCT rollout_id, package_sha256 FROM inserted_devices) d
                WHERE NOT EXISTS (SELECT FROM rollouts r WHERE r.id = d.rollout_id)
                    OR (d.package_sha256 IS NOT NULL AND NOT EXISTS (
                        SELECT FROM packages p WHERE p.rollout_id = d.rollout_id AND p.sha256 = d.package_sha256)))
            THEN
                RAISE EXCEPTION 'a device names a rollout or a package the store does not have'
                    USING ERRCODE = 'foreign_key_violation';
            END IF;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER devices_references AFTER INSERT ON devices
            REFERENCING NEW TABLE AS inserted_devices
            FOR EACH STATEMENT EXECUTE FUNCTION devices_check_references()
        """,
    ]
}

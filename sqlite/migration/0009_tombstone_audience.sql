-- Who could read a deleted object: its tenant, user, classification and
-- permission scope as JSON. A tombstone is shown only to principals who
-- could read the object it records; those recorded before this migration
-- (audience NULL) are shown to no one, since nobody knows who could.
ALTER TABLE tombstones ADD COLUMN audience TEXT;

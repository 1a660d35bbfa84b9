-- fnhost's tables, each a key range of one relation: `tbl` names the table,
-- `k` is the key (ordered by its bytes, as the embedded engine orders keys),
-- `v` the value. Released migrations are never edited; a change is a new file.
CREATE TABLE fnhost_kv (
    tbl text NOT NULL,
    k bytea NOT NULL,
    v bytea NOT NULL,
    PRIMARY KEY (tbl, k)
);

import { PostgresUserStore } from '../stores/postgres-user-store';
import { SqliteUserStore } from '../stores/sqlite-user-store';
import { UserStore } from '../services/user-store';
import { DatabaseConfig } from './config';

export interface OpenStoreOptions {
  /** Told about connections a database restart ended while idle (PostgreSQL); harmless, worth a log line. */
  onConnectionError?: (error: Error) => void;
}

/** Opens (and migrates) the store the configuration names; fails if the database cannot be reached or migrated. */
export async function openStore(database: DatabaseConfig, options: OpenStoreOptions = {}): Promise<UserStore> {
  switch (database.kind) {
    case 'sqlite':
      return SqliteUserStore.open({ filename: database.filename });
    case 'postgres':
      return PostgresUserStore.open({
        connectionString: database.connectionString,
        preparedStatements: database.preparedStatements,
        onConnectionError: options.onConnectionError,
      });
  }
}

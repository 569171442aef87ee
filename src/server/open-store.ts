import { SqliteUserStore } from '../stores/sqlite-user-store';
import { UserStore } from '../stores/user-store';
import { ConfigError, DatabaseConfig } from './config';

/** Opens (and migrates) the store the configuration names. */
export async function openStore(database: DatabaseConfig): Promise<UserStore> {
  switch (database.kind) {
    case 'sqlite':
      return SqliteUserStore.open({ filename: database.filename });
    case 'postgres':
      throw new ConfigError(
        'GATEHOUSE_DATABASE_URL names PostgreSQL, which this version does not support yet; use sqlite:<file>',
      );
  }
}

import { describeUserStoreConformance } from '../../src/stores/conformance';
import { MemoryUserStore } from '../../src/stores/memory-user-store';

describeUserStoreConformance('MemoryUserStore', async () => new MemoryUserStore());

// The conformance suites, by concern: `conformance/account/` and `conformance/outbox/`, a file per area. This file
// keeps the path earlier releases documented (`gatehouse/build/src/stores/conformance`); `gatehouse/testing` is the
// entry to use.
export {
  describeAccountStoreConformance,
  describeOutboxStoreConformance,
  describeUserStoreConformance,
} from './conformance/index';

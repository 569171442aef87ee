// Loaded by mocha before every test file (see .mocharc.json): decorators need the metadata polyfill first.
import 'reflect-metadata';
import { installContractHook } from './support/contract';

// Every answer of a Gatehouse route that a suite receives is checked against the OpenAPI document (contract.ts).
installContractHook();

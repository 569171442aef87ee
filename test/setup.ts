// Loaded by mocha before every test file (see .mocharc.json): decorators need the metadata polyfill first.
import 'reflect-metadata';

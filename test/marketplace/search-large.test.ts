import { serviceTestWith } from '../helpers/service-test.js';
import { searchSuite } from './search-suite.js';

// Every search takes the plans of a large catalogue (the hot band, the words a prefix starts).
searchSuite('a large catalogue', serviceTestWith({ MARKETPLACE_LARGE_FROM: '0' }));

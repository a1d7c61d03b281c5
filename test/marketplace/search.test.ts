import { serviceTest } from '../helpers/service-test.js';
import { searchSuite } from './search-suite.js';

searchSuite('a small catalogue', serviceTest);

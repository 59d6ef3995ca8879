/** Runs the C++ unit tests of the shared op helpers and CPU kernels (build/Release/tsgpu_ops_tests). */
import { expectCppTestsPass } from './cpp_runner';

test('C++ op helper and kernel tests pass', () => {
  expectCppTestsPass('tsgpu_ops_tests');
});

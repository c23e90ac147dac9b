// The FormatError a model file is refused with; fails the test when the file is read, or something else is thrown.
import { expect } from 'vitest';
import { FormatError, readModel, type ModelFormat } from '../../src/formats/index.js';

export function refusal(format: ModelFormat, text: string): FormatError {
  try {
    readModel(format, text);
  } catch (error) {
    expect(error).toBeInstanceOf(FormatError);
    return error as FormatError;
  }
  throw new Error('expected a FormatError');
}

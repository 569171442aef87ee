import { IsOptional, IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../services/admin-views';
import { MAX_CURSOR } from '../dto/bounds';
import { IsWholeNumberText } from './query-values';

/** The paging part of a list's query: how many per page, and where the previous page ended. */
export class PageQuery {
  @JSONSchema({
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: 'Items per page.',
  })
  @IsWholeNumberText(1, MAX_PAGE_SIZE)
  @IsOptional()
  limit?: string;

  @JSONSchema({ description: 'The `next_cursor` of the previous page, with the same filters.' })
  @MaxLength(MAX_CURSOR)
  @IsString()
  @IsOptional()
  cursor?: string;

  /** The validated text as the core's paging. */
  protected page(): { limit: number | undefined; cursor: string | undefined } {
    return { limit: this.limit === undefined ? undefined : Number(this.limit), cursor: this.cursor };
  }
}

import { Controller, Get, HttpStatus, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiSchema, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/auth.decorators.js';
import { ApiProblemResponses } from '../common/errors/api-problem-responses.decorator.js';
import { HealthRepository } from './health.repository.js';
import { ShutdownDrain } from '../lifecycle/shutdown-drain.js';

@ApiSchema({ name: 'Health' })
export class HealthDto {
  // Written out: the swagger plugin only reads classes in *.dto.ts files.
  @ApiProperty({ enum: ['ok'], example: 'ok', description: 'Always `ok` when the service answers' })
  status!: 'ok';
}

@ApiSchema({ name: 'Readiness' })
export class ReadinessDto extends HealthDto {
  @ApiProperty({ enum: ['ok'], example: 'ok', description: 'The database answered a query' })
  database!: 'ok';
}

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthRepository,
    private readonly drain: ShutdownDrain,
  ) {}

  /**
   * Liveness probe
   * @remarks The process is up and serving HTTP.
   */
  @Get()
  @ApiOkResponse({ type: HealthDto, description: 'The service is up.' })
  liveness(): HealthDto {
    return { status: 'ok' };
  }

  /**
   * Readiness probe
   * @remarks The database answers too, and the instance is not shutting down: from SIGTERM on it
   * answers 503 while it keeps serving for `SHUTDOWN_DELAY_MS`. A load balancer should stop
   * routing here on 503.
   */
  @Get('ready')
  @ApiOkResponse({ type: ReadinessDto, description: 'The service is up and its database answers.' })
  @ApiProblemResponses('service_unavailable')
  async readiness(): Promise<ReadinessDto> {
    if (this.drain.draining) throw unavailable('The instance is shutting down');
    try {
      await this.health.pingDatabase();
    } catch {
      throw unavailable('The database is unreachable');
    }
    return { status: 'ok', database: 'ok' };
  }
}

function unavailable(message: string): ServiceUnavailableException {
  return new ServiceUnavailableException({ statusCode: HttpStatus.SERVICE_UNAVAILABLE, message });
}

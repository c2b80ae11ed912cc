import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service.js';

export interface AuditEventRecord {
  id: string;
  createdAt: Date;
  actorId: string | null;
  actor: string;
  via: string;
  action: string;
  targetType: string;
  target: string;
  reason: string | null;
}

export type NewAuditEvent = Omit<AuditEventRecord, 'id' | 'createdAt'>;

@Injectable()
export class AuditLogRepository {
  constructor(private readonly prisma: PrismaService) {}

  async add(event: NewAuditEvent): Promise<void> {
    await this.prisma.auditEvent.create({ data: event });
  }

  /** One page of the log, newest first. */
  async list(limit: number, offset: number): Promise<{ events: AuditEventRecord[]; total: number }> {
    const [events, total] = await Promise.all([
      this.prisma.auditEvent.findMany({
        orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
        take: limit,
        skip: offset,
      }),
      this.prisma.auditEvent.count(),
    ]);
    return { events, total };
  }
}

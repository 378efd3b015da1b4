export { noThumbnails, type ThumbnailService } from './thumbnail-service';
export {
  createThumbnailService,
  thumbnailLocation,
  type ThumbnailServiceImpl,
  type ThumbnailServiceOptions,
} from './postgres-thumbnails';
export { thumbnailRouter } from './router';
export { fetchImage, isPublicAddress, ImageFetchError } from './fetch-image';
